/** The client the peer (node-oidc-provider) knows, and the resource it issues for. */
export const PEER_CLIENT = {
  client_id: 'bench-client',
  client_secret: 'bench-secret-bench-secret-bench-secret',
};
export const PEER_RESOURCE = 'https://storefront.api.local/';

/** The peer's client_credentials request, as the load generator repeats it. */
export function peerTokenRequest(peerPort: number) {
  return {
    url: `http://127.0.0.1:${peerPort}/token`,
    method: 'POST' as const,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      ...PEER_CLIENT,
      resource: PEER_RESOURCE,
    }).toString(),
  };
}
