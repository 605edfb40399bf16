import { createPublicKey, type KeyObject } from 'node:crypto';
import type { PublicKeys } from '../crypto/access-tokens.js';

/**
 * The issuer's signing keys from its JWKS endpoint, as Node key objects: fetched on first use and
 * again when a token names a kid not held (a rotation), at most once a second.
 */
export function remotePublicKeys(jwksUrl: string, doFetch: typeof fetch): PublicKeys {
  let keys = new Map<string, KeyObject>();
  let lastFetch = 0;
  let pending: Promise<void> | undefined;
  const load = async () => {
    lastFetch = Date.now();
    const response = await doFetch(jwksUrl, { signal: AbortSignal.timeout(5000) });
    if (response.status !== 200) return;
    const { keys: published } = (await response.json()) as { keys: { kid?: string }[] };
    const next = new Map<string, KeyObject>();
    for (const jwk of published) {
      if (typeof jwk.kid !== 'string') continue;
      try {
        next.set(jwk.kid, createPublicKey({ key: jwk as never, format: 'jwk' }));
      } catch {
        // a key we cannot use is no key of ours
      }
    }
    keys = next;
  };
  return {
    publicKey: (kid) => keys.get(kid),
    refreshSoon() {
      if (Date.now() - lastFetch < 1000) return pending ?? Promise.resolve();
      pending ??= load()
        .catch(() => undefined)
        .finally(() => (pending = undefined));
      return pending;
    },
  };
}
