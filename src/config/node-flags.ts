/**
 * Node flags every API process runs with: `npm start`'s workers get them from start.ts, the
 * fleet's replicas from tools/fleet/up.ts, and the compose file and Kubernetes manifests spell them
 * out (their tests hold them to this list).
 *
 * A 64 MB young generation (V8's default is 16): an issuance allocates a few kilobytes that die
 * young, and at thousands a second the default space fills every few milliseconds. Measured
 * (`npm run bench -- --profile`): garbage collection 7.8% → 5.6% of the API's busy time. It costs
 * up to 128 MB more memory per API process at peak, within the manifests' 1 GiB limit.
 */
export const API_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];
