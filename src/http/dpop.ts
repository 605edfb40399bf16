import type { Context } from 'koa';
import { InvalidDpopProofError, InvalidTokenError } from '../errors/errors.js';
import type { Limits } from '../limits/limits.js';
import { checkDpopProof, type DpopProof } from '../crypto/dpop.js';

/** What checking a request's DPoP proof needs: the public origin, and the address's budget. */
export interface DpopGate {
  /** TOKEN_ISSUER: the only origin a proof's htu may name (never the request's Host). */
  readonly origin: string;
  /** A failed proof counts against its address, as a bad login token does. */
  readonly limits: Pick<Limits, 'assertLoginNotLockedOut' | 'failedLogin'>;
}

/** The access token of the request and how it was presented (RFC 6750 Bearer, RFC 9449 DPoP). */
export function presentedToken(ctx: Context): {
  readonly scheme: 'Bearer' | 'DPoP';
  readonly token: string;
} {
  const header = ctx.get('authorization');
  if (!header) {
    throw new InvalidTokenError('Authorization: Bearer <token> is required', {
      missingCredentials: true,
    });
  }
  // RFC 6750 §2.1 b64token, under either scheme.
  const match = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header);
  if (!match)
    throw new InvalidTokenError('Authorization header must be "Bearer <token>" or "DPoP <token>"');
  return { scheme: match[1]!.toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer', token: match[2]! };
}

/**
 * The request's DPoP proof, checked for this method and TOKEN_ISSUER's URL of this path (never a
 * client-sent Host), and for `accessToken` when one is presented with it; undefined when none was
 * sent. A failed proof counts against the address's budget (429 once spent). The jti's one use is
 * the command's to check (shared across processes).
 */
export async function dpopProofOf(
  ctx: Context,
  gate: DpopGate,
  accessToken?: string,
): Promise<DpopProof | undefined> {
  const proof = ctx.get('dpop');
  if (!proof) return undefined;
  try {
    if (proof.includes(',')) throw new InvalidDpopProofError('send one DPoP header');
    return await checkDpopProof(proof, {
      method: ctx.method,
      url: `${gate.origin.replace(/\/+$/, '')}${ctx.path}`,
      nowMs: Date.now(),
      accessToken,
    });
  } catch (error) {
    if (error instanceof InvalidDpopProofError) {
      gate.limits.assertLoginNotLockedOut(ctx.ip);
      gate.limits.failedLogin(ctx.ip);
    }
    throw error;
  }
}

/**
 * A private token's use as RFC 9449 §7 asks: a DPoP-bound token only as `DPoP <token>` with its
 * proof, a bearer token never under the DPoP scheme. Returns the proof, if any (it may also bind
 * the public token bought with a bearer token).
 */
export async function proofForToken(
  ctx: Context,
  gate: DpopGate,
  presented: { readonly scheme: 'Bearer' | 'DPoP'; readonly token: string },
  claims: { readonly cnf?: { readonly jkt: string } },
): Promise<DpopProof | undefined> {
  const bound = Boolean(claims.cnf?.jkt);
  if (!bound && presented.scheme === 'DPoP') {
    throw new InvalidTokenError('this token is not DPoP-bound: present it as Bearer');
  }
  if (bound && presented.scheme !== 'DPoP') {
    throw new InvalidTokenError(
      'this token is DPoP-bound: present it as "DPoP <token>" with a proof',
    );
  }
  return proofForPresentedToken(ctx, gate, presented.token, claims);
}

/**
 * The proof a request presenting `token` needs (in Authorization, or as RFC 8693's subject_token):
 * for a DPoP-bound token, one by its key whose `ath` is the token's hash (RFC 9449 §4.3), so a
 * proof made for another token buys nothing with a stolen one; else the request's proof, if any.
 */
export async function proofForPresentedToken(
  ctx: Context,
  gate: DpopGate,
  token: string,
  claims: { readonly cnf?: { readonly jkt: string } },
): Promise<DpopProof | undefined> {
  const bound = claims.cnf?.jkt;
  if (!bound) return dpopProofOf(ctx, gate);
  const proof = await dpopProofOf(ctx, gate, token);
  if (!proof) throw new InvalidDpopProofError('a DPoP-bound token needs a DPoP proof');
  if (proof.jkt !== bound) {
    throw new InvalidDpopProofError(
      'the DPoP proof is signed by another key than the token is bound to',
    );
  }
  return proof;
}
