import type { Context } from 'koa';
import { InvalidDpopProofError, InvalidTokenError } from '../errors/errors.js';
import { checkDpopProof, type DpopProof } from '../tokens/dpop.js';

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
 * The request's DPoP proof, checked for this method and URL (the issuer's, or the one the client
 * connected to), and for `accessToken` when one is presented with it; undefined when none was
 * sent. Its jti's one use is checked by the command (shared across processes).
 */
export async function dpopProofOf(
  ctx: Context,
  issuer: string,
  accessToken?: string,
): Promise<DpopProof | undefined> {
  const proof = ctx.get('dpop');
  if (!proof) return undefined;
  if (proof.includes(',')) throw new InvalidDpopProofError('send one DPoP header');
  return checkDpopProof(proof, {
    method: ctx.method,
    urls: [`${issuer.replace(/\/+$/, '')}${ctx.path}`, `${ctx.protocol}://${ctx.host}${ctx.path}`],
    nowMs: Date.now(),
    accessToken,
  });
}

/**
 * A private token's use as RFC 9449 §7 asks: a DPoP-bound token only with `Authorization: DPoP`
 * and a proof by its key (with `ath`); a bearer token never under the DPoP scheme. Returns the
 * proof, if any (it may also bind the public token bought with a bearer token).
 */
export async function proofForToken(
  ctx: Context,
  issuer: string,
  presented: { readonly scheme: 'Bearer' | 'DPoP'; readonly token: string },
  claims: { readonly cnf?: { readonly jkt: string } },
): Promise<DpopProof | undefined> {
  const bound = claims.cnf?.jkt;
  if (!bound) {
    if (presented.scheme === 'DPoP') {
      throw new InvalidTokenError('this token is not DPoP-bound: present it as Bearer');
    }
    return dpopProofOf(ctx, issuer);
  }
  if (presented.scheme !== 'DPoP') {
    throw new InvalidTokenError(
      'this token is DPoP-bound: present it as "DPoP <token>" with a proof',
    );
  }
  const proof = await dpopProofOf(ctx, issuer, presented.token);
  if (!proof) throw new InvalidDpopProofError('a DPoP-bound token needs a DPoP proof');
  if (proof.jkt !== bound) {
    throw new InvalidDpopProofError(
      'the DPoP proof is signed by another key than the token is bound to',
    );
  }
  return proof;
}
