import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAccessTokenVerifier } from '../../src/crypto/access-tokens.js';
import { checkDpopProof } from '../../src/crypto/dpop.js';
import { InvalidDpopProofError, InvalidTokenError } from '../../src/errors/errors.js';
import { verifyAccessToken } from '../../packages/verifier/src/access-token-check.js';
import { checkDpopProof as kitCheckDpopProof } from '../../packages/verifier/src/dpop.js';
import { TokenRefusal } from '../../packages/verifier/src/refusal.js';

const { publicKey } = generateKeyPairSync('ed25519');
const keys = { publicKey: () => publicKey, refreshSoon: async () => undefined };
const policy = { issuer: 'https://issuer.test', audiences: ['storefront.test'] };
const request = { method: 'POST', url: 'https://tokens.test/v1/issue', nowMs: 1_800_000_000_000 };

// The checks are the verifier kit's and throw its TokenRefusal; the service's routes answer with
// the code of its own errors (src/http/error-response.ts), so its wrappers must turn one into the other.
describe("the kit's refusals, as the service throws them", () => {
  it('a token the kit refuses is the service’s InvalidTokenError (invalid_token)', async () => {
    await expect(verifyAccessToken('a.b', 'any', keys, policy, 0)).rejects.toSatisfy(
      (error) => error instanceof TokenRefusal && error.code === 'invalid_token',
    );
    const verifier = createAccessTokenVerifier(keys, policy, { clock: { now: () => 0 } });
    await expect(verifier.verifyAny('a.b')).rejects.toSatisfy(
      (error) => error instanceof InvalidTokenError && /malformed/.test(error.message),
    );
  });

  it('a DPoP proof the kit refuses is the service’s InvalidDpopProofError', async () => {
    const proof = 'a'.repeat(5000);
    await expect(kitCheckDpopProof(proof, request)).rejects.toSatisfy(
      (error) => error instanceof TokenRefusal && error.code === 'invalid_dpop_proof',
    );
    await expect(checkDpopProof(proof, request)).rejects.toSatisfy(
      (error) => error instanceof InvalidDpopProofError && /longer than 4096/.test(error.message),
    );
  });
});
