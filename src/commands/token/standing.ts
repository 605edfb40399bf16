import type { AccessTokenClaims } from '../../crypto/access-tokens.js';
import type { Credential } from '../../domain/credential/state.js';
import { clientDomain, credentialUnderRule, tokenCredentials } from '../../domain/policy.js';
import type { CommandContext } from '../context.js';
import {
  isMetadataClientId,
  metadataClientIdRefusal,
} from '../../domain/metadata-client/decide.js';
import { credentialOf } from '../client-authentication/metadata-client.js';

/** What finding a token's credentials reads: the lookups, the rules and the scope catalog. */
export type StandingPorts = Pick<
  CommandContext,
  'credentials' | 'metadataClients' | 'trustedIssuers' | 'clock' | 'scopeCatalog'
>;

/**
 * A client as it stands in `spaceId` now: its credential, or a metadata document's client on its
 * domain as the space allows it (none: removed), which is how such an agent is named in `may_act`.
 */
export async function clientStanding(ctx: StandingPorts, spaceId: string, id: string) {
  if (!isMetadataClientId(id)) return ctx.credentials.find(id);
  if (metadataClientIdRefusal(id)) return undefined;
  const allowed = await ctx.metadataClients?.domain(spaceId, clientDomain(id) ?? '');
  return allowed ? credentialOf(id, allowed, { keys: [] }, ctx.clock.now()) : undefined;
}

/**
 * The credentials a token stands on now (policy.tokenCredentials); one bought under an issuer's
 * rule, on its credential narrowed to the rule as it is now (none once issuer or rule is gone).
 */
export async function credentialsBehind(
  ctx: StandingPorts,
  claims: AccessTokenClaims,
): Promise<Array<Credential | undefined>> {
  const ids = tokenCredentials(claims);
  const found = await Promise.all(ids.map((id) => clientStanding(ctx, claims.space_id, id)));
  const bought = 'issuer_rule' in claims ? claims.issuer_rule : undefined;
  if (!bought) return found;
  const issuer = await ctx.trustedIssuers?.find(claims.space_id, bought.iss);
  // The client it was issued to (the agent, delegated) stands on the rule; those before it, as they are.
  const [own, ...before] = found;
  return [credentialUnderRule(own, issuer, bought, ctx.scopeCatalog), ...before];
}
