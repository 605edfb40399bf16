import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a secret handed out once is kept as: its SHA-256, base64url. 32 random bytes need no salt. */
export const digestOf = (secret: string): string =>
  createHash('sha256').update(secret).digest('base64url');

/** A fresh secret (256 bits, base64url) and the digest to keep instead of it. */
export function newSecret(): { readonly secret: string; readonly digest: string } {
  const secret = randomBytes(32).toString('base64url');
  return { secret, digest: digestOf(secret) };
}

/** Whether `secret` is the one `digest` was kept for, in constant time. */
export function secretMatches(secret: string, digest: string): boolean {
  const mine = Buffer.from(digestOf(secret));
  const kept = Buffer.from(digest);
  return mine.length === kept.length && timingSafeEqual(mine, kept);
}

/**
 * An authorization code: the request it belongs to and a secret, so the code finds its request
 * by id and only its digest is kept. The id is not secret; the code is as strong as its secret.
 */
export function newCode(requestId: string): { readonly code: string; readonly digest: string } {
  const { secret, digest } = newSecret();
  return { code: `${requestId}.${secret}`, digest };
}

/** A code as sent: its request's id and its secret, or undefined when it is no code of ours. */
export function readCode(
  code: string,
): { readonly requestId: string; readonly secret: string } | undefined {
  const match = /^([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$/.exec(code);
  return match ? { requestId: match[1]!, secret: match[2]! } : undefined;
}
