import { tokenInSpace } from '../../domain/policy.js';
import type { Credential } from '../../domain/credential/state.js';
import type { EventMetadata } from '../../domain/events.js';
import type { CommandContext } from '../context.js';
import { handle } from '../handle.js';
import { verifiedClaims } from './introspect.js';
import { revokeTokenDecider } from './revoke-decider.js';

/**
 * RFC 7009: revokes `token` when it was issued to the authenticated client, else nothing is
 * recorded. Its public tokens go along (they name it as parent_jti).
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
  const claims = await verifiedClaims(ctx, command.token, command.client.clientId);
  if (!claims || !tokenInSpace({ spaceId: claims.space_id }, command.client.spaceId)) return;
  await handle(ctx.events, revokeTokenDecider(ctx), {
    clientId: command.client.clientId,
    claims,
    metadata: command.metadata,
  });
}
