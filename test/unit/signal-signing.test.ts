import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signalSigner } from '../../src/crypto/signal-signing.js';
import type { SpaceKeyStore } from '../../src/crypto/space-keys.js';
import type { SigningKey } from '../../src/crypto/key-store.js';
import type { TokenSigner } from '../../src/crypto/token-signer.js';

const storeWith = (key: SigningKey) =>
  ({ ring: async () => ({ current: () => key }) }) as unknown as SpaceKeyStore;
const claims = [1, 2, 3].map((n) => ({ jti: `set-${n}` }));

describe('signalSigner.signAll', () => {
  it("signs a local key's SETs in order, each its own", async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const signer = signalSigner(storeWith({ kid: 'k1', privateKey }), 'https://issuer.test');
    const all = await signer.signAll('s', claims);
    const one = await Promise.all(claims.map((each) => signer.sign('s', each)));
    expect(all).toEqual(one);
    expect(
      all.map((jwt) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString())),
    ).toEqual(claims);
  });

  it('asks an HSM for one signature at a time: its queue holds only a share a space', async () => {
    let inFlight = 0;
    let most = 0;
    const hsm = {
      async sign(_kid: string, input: Buffer) {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight -= 1;
        return Buffer.from(input.subarray(0, 4));
      },
    } as unknown as TokenSigner;
    const signer = signalSigner(storeWith({ kid: 'h1', signer: hsm }), 'https://issuer.test');
    const all = await signer.signAll('s', claims);
    expect(all).toHaveLength(3);
    expect(most).toBe(1);
  });
});
