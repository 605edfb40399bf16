import { calculatePKCECodeChallenge, generateRandomCodeVerifier } from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { codeChallengeRefusal, s256, verifierMatches } from '../src/pkce.js';

describe('PKCE S256 (RFC 7636)', () => {
  it("matches Appendix B's example: the verifier and the challenge the RFC prints", () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    expect(s256(verifier)).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    expect(verifierMatches(verifier, 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
  });

  it('takes the verifier and challenge a client library (oauth4webapi) makes', async () => {
    const verifier = generateRandomCodeVerifier();
    const challenge = await calculatePKCECodeChallenge(verifier);
    expect(codeChallengeRefusal(challenge)).toBeUndefined();
    expect(verifierMatches(verifier, challenge)).toBe(true);
  });

  it('refuses another verifier, a short one, one of other characters, and a plain challenge', async () => {
    const verifier = generateRandomCodeVerifier();
    const challenge = await calculatePKCECodeChallenge(verifier);
    expect(verifierMatches(generateRandomCodeVerifier(), challenge)).toBe(false);
    expect(verifierMatches('a'.repeat(42), s256('a'.repeat(42)))).toBe(false);
    expect(verifierMatches(`${'a'.repeat(42)}+`, s256(`${'a'.repeat(42)}+`))).toBe(false);
    expect(verifierMatches('a'.repeat(129), s256('a'.repeat(129)))).toBe(false);
    // plain: the challenge is the verifier itself, which is no S256 digest.
    expect(verifierMatches(verifier, verifier)).toBe(false);
    // A plain challenge of any length but a digest's is no S256 challenge at all.
    expect(codeChallengeRefusal('a'.repeat(64))).toBeDefined();
    expect(codeChallengeRefusal(`${'a'.repeat(42)}=`)).toBeDefined();
  });
});
