import { spaceIssuer } from '#verifier/issuer-keys.js';
import { signJwt } from './access-tokens.js';
import type { SpaceKeyStore } from './space-keys.js';
import { UnavailableError } from '../errors/errors.js';

/** What signs a space's SETs: its own ring's current key, never the shared ring. */
export interface SignalSigner {
  readonly issuer: (spaceId: string) => string;
  sign(spaceId: string, claims: object): Promise<string>;
  /**
   * Each of `claims` signed, in order: a local key's in one loop turn (crypto/turn.ts), an HSM's
   * one at a time (its queue holds a quarter of APPEND_QUEUE_LIMIT a space).
   */
  signAll(spaceId: string, claims: readonly object[]): Promise<string[]>;
}

/** The deliverer's signer of SETs: the space's ring as the API reads it (the same keys table). */
export function signalSigner(spaces: SpaceKeyStore, serviceIssuer: string): SignalSigner {
  const keyOf = async (spaceId: string) => {
    const key = (await spaces.ring(spaceId)).current();
    if (!key) throw new UnavailableError("the space's own signing ring has no key; retry shortly");
    return key;
  };
  return {
    issuer: (spaceId) => spaceIssuer(serviceIssuer, spaceId),
    async sign(spaceId, claims) {
      return signJwt(await keyOf(spaceId), claims, 'secevent+jwt', spaceId);
    },
    async signAll(spaceId, claims) {
      const key = await keyOf(spaceId);
      const sign = (each: object) => signJwt(key, each, 'secevent+jwt', spaceId);
      if (key.privateKey) return Promise.all(claims.map(sign));
      const signed: string[] = [];
      for (const each of claims) signed.push(await sign(each));
      return signed;
    },
  };
}
