import type { AccessTokenClaims } from '../../crypto/access-tokens.js';
import type { Credential } from '../../domain/credential/state.js';
import { credentialUnderRule, tokenCredentials } from '../../domain/policy.js';
import type { CommandContext } from '../context.js';

/**
 * The credentials a token stands on as they are now, for policy.standsOnCredentials: its client's
 * and each in its `act` chain; one bought with a trusted issuer's assertion stands on its
 * credential narrowed to the rule as it is now, on none once the issuer or the rule is gone.
 */
export async function credentialsBehind(
  ctx: CommandContext,
  claims: AccessTokenClaims,
): Promise<Array<Credential | undefined>> {
  const found = await Promise.all(tokenCredentials(claims).map((id) => ctx.credentials.find(id)));
  const bought = 'issuer_rule' in claims ? claims.issuer_rule : undefined;
  if (!bought) return found;
  const issuer = await ctx.trustedIssuers?.find(claims.space_id, bought.iss);
  return [credentialUnderRule(found[0], issuer, bought, ctx.scopeCatalog)];
}
