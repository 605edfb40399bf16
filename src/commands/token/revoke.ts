import { tokenInSpace } from '../../domain/policy.js';
import type { Credential } from '../../domain/credential/state.js';
import type { EventMetadata } from '../../domain/events.js';
import type { CommandContext } from '../context.js';
import { handle } from '../handle.js';
import { verifiedClaims } from './introspect.js';
import { revokeTokenDecider } from './revoke-decider.js';

/**
 * RFC 7009: revokes `token` when it was issued to the authenticated client; for anything else
 * (another client's token, a forged or expired one) nothing happens and nothing is recorded.
 * A revoked private token takes the public tokens derived from it along (they name it as
 * parent_jti, which introspection, /v1/issue and the revocation list all check).
 */
export async function revokeToken(
  ctx: CommandContext,
  command: {
    readonly client: Credential;
    readonly token: string;
    readonly metadata: EventMetadata;
  },
): Promise<void> {
  // Every call draws from the client's budget, like issuance: no endpoint is a free amplifier.
  ctx.limits.clientRequest(command.client);
  const claims = await verifiedClaims(ctx, command.token);
  if (!claims || !tokenInSpace({ spaceId: claims.space_id }, command.client.spaceId)) return;
  await handle(ctx.events, revokeTokenDecider(ctx), {
    clientId: command.client.clientId,
    claims,
    metadata: command.metadata,
  });
}
