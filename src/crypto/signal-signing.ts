import { spaceIssuer } from '#verifier/issuer-keys.js';
import { signJwt } from './access-tokens.js';
import type { SpaceKeyStore } from './space-keys.js';
import { UnavailableError } from '../errors/errors.js';

/** What signs a space's SETs: its own ring's current key, never the shared ring. */
export interface SignalSigner {
  readonly issuer: (spaceId: string) => string;
  sign(spaceId: string, claims: object): Promise<string>;
}

/** The deliverer's signer of SETs: the space's ring as the API reads it (the same keys table). */
export function signalSigner(spaces: SpaceKeyStore, serviceIssuer: string): SignalSigner {
  return {
    issuer: (spaceId) => spaceIssuer(serviceIssuer, spaceId),
    async sign(spaceId, claims) {
      const key = (await spaces.ring(spaceId)).current();
      if (!key) {
        throw new UnavailableError("the space's own signing ring has no key; retry shortly");
      }
      return signJwt(key, claims, 'secevent+jwt', spaceId);
    },
  };
}
