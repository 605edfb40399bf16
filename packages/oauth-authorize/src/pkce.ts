import { createHash, timingSafeEqual } from 'node:crypto';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** An S256 challenge: a SHA-256 digest, base64url without padding (RFC 7636 §4.2). */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

/** The only method taken: `plain` sends the verifier itself (OAuth 2.1 §4.1.1 prefers S256). */
export const CODE_CHALLENGE_METHODS = ['S256'] as const;

/** Why `challenge` is not an S256 code challenge, or undefined. */
export function codeChallengeRefusal(challenge: string): string | undefined {
  return CHALLENGE.test(challenge) ? undefined : 'must be 43 base64url characters (S256)';
}

/** BASE64URL(SHA256(ASCII(verifier))): RFC 7636 §4.2's S256. */
export const s256 = (verifier: string): string =>
  createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** RFC 7636 §4.6: whether `verifier` is well formed and hashes to `challenge`, in constant time. */
export function verifierMatches(verifier: string, challenge: string): boolean {
  if (!VERIFIER.test(verifier) || !CHALLENGE.test(challenge)) return false;
  return timingSafeEqual(Buffer.from(s256(verifier)), Buffer.from(challenge));
}
