import { InvalidDpopProofError } from '../../errors/errors.js';
import type { DpopProof } from '../../crypto/dpop.js';
import type { CommandContext } from '../context.js';

/** A DPoP proof is good for one request (RFC 9449 §11.1): its jti is remembered across replicas. */
export async function rememberDpopProof(
  ctx: CommandContext,
  spaceId: string,
  proof: DpopProof,
): Promise<void> {
  const fresh = await ctx.usedOnce.remember({
    spaceId,
    holder: `dpop:${proof.jkt}`,
    id: proof.jti,
    expiresAt: proof.expiresAt,
  });
  if (!fresh) throw new InvalidDpopProofError('this DPoP proof was already used (jti replayed)');
}
