import type { Credential } from '../../domain/credential/state.js';
import { SYSTEM_SPACE, type EventMetadata } from '../../domain/events.js';
import type { ClientJwks } from '../../domain/event-data/credential.js';
import {
  decideFirstSeen,
  domainBudgetKey,
  metadataClientIdRefusal,
  type MetadataClientDomain,
} from '../../domain/metadata-client/decide.js';
import { fetchBusy } from '#outbound/guarded-fetcher.js';
import { UnavailableError } from '../../errors/errors.js';
import type { CommandContext } from '../context.js';
import { clientDomain } from '../../domain/policy.js';
import { assertionProvesClient } from './assertion.js';
import { accept } from '../../domain/decision.js';
import type { NewEvent } from '#event-log/types.js';
import { handle, type Placed } from '../handle.js';
import { recordingDecider } from '../recording.js';

/** The document's client as a credential of the space: its keys, the domain's scopes and budget. */
export function credentialOf(
  clientId: string,
  allowed: MetadataClientDomain,
  jwks: ClientJwks,
  now: number,
): Credential {
  const { spaceId, domain, scopes } = allowed;
  return {
    clientId,
    spaceId,
    name: clientId,
    description: 'a client ID metadata document',
    createdBy: 'metadata-document',
    status: 'active',
    secretHash: null,
    jwks,
    requireDpop: false,
    // Its document names them, read at /authorize.
    redirectUris: [],
    previousSecretHash: null,
    previousSecretExpiresAt: null,
    revokedAt: null,
    revokedReason: null,
    rateLimitPerMinute: allowed.budgetPerMinute,
    // Every URL under the domain is one client: one budget, one failure count.
    budgetKey: domainBudgetKey(spaceId, domain),
    scopes,
    scopesNarrowedAt: null,
    version: 0,
    createdAt: now,
    updatedAt: now,
  };
}

// Once: the stream is named by a key two replicas share, so it is checked; the loser is settled.
const firstUses = recordingDecider<{ readonly event: NewEvent; readonly placed: Placed }>({
  stream: (command) => command.placed,
  decide: (command) => accept([command.event]),
  once: true,
});

/** Records a document's first use in a space once across processes (its stream is checked). */
async function recordFirstUse(
  ctx: CommandContext,
  credential: Credential,
  thumbprints: readonly string[],
  metadata: EventMetadata,
): Promise<void> {
  const seen = ctx.metadataClients!.seen;
  const key = `${credential.spaceId} ${credential.clientId}`;
  if (seen.has(key)) return;
  const { event, placed } = decideFirstSeen({
    eventId: ctx.ids.eventId(),
    metadata,
    spaceId: credential.spaceId,
    clientId: credential.clientId,
    thumbprints,
  });
  await handle(ctx.events, firstUses, { event, placed });
  seen.add(key);
}

/**
 * Authenticates a client whose id is its metadata document's https URL: an allowed domain, the
 * document fetched under the SSRF rules, the assertion signed by its keys (refetched once for an
 * unknown kid). A refusal says why and spends the failed-authentication budget.
 */
export async function authenticateMetadataClient(
  ctx: CommandContext,
  command: {
    readonly spaceId: string;
    readonly clientId: string;
    readonly assertion: string;
    readonly metadata: EventMetadata;
  },
  refusal: (reason: string) => Error,
): Promise<Credential> {
  const { clientId, spaceId } = command;
  const ip = command.metadata.client_ip;
  const host = clientDomain(clientId);
  const counted = host === undefined ? clientId : domainBudgetKey(spaceId, host);
  const refused = (why: string): never => {
    ctx.limits.assertClientNotLockedOut(counted, ip);
    ctx.limits.failedClientAuthentication(counted, ip);
    throw refusal(`client_id: ${why}`);
  };
  const ports = ctx.metadataClients ?? refused('this service takes no metadata documents');
  const badId = metadataClientIdRefusal(clientId);
  if (badId) return refused(badId);
  const allowed =
    (await ports.domain(spaceId, host!)) ?? refused(`${host} is not allowed in this space`);
  // A locked-out caller is judged by a held document only: guessing starts no outbound call.
  const held = ctx.limits.clientLockedOut(counted, ip);
  const proven = async (refresh: boolean) => {
    const client = await ports.documents
      .clientAt(clientId, { spaceId, refresh, held })
      .catch((error: unknown) => {
        const why = `client_id: its document: ${(error as Error).message}`;
        // Our bound, not the client's doing: a 503, its failed-authentication budget unspent.
        if (fetchBusy(error)) throw new UnavailableError(why);
        return refused(`its document: ${(error as Error).message}`);
      });
    const credential = credentialOf(clientId, allowed, client.jwks, ctx.clock.now());
    // Its jti spent for every space at once: the assertion names none, so it buys one token.
    const once = { ...credential, spaceId: SYSTEM_SPACE };
    const ok = await assertionProvesClient(
      ctx,
      command.assertion,
      once,
      command.metadata.request_id,
    );
    return ok ? { credential, client } : undefined;
  };
  const { credential, client } =
    (await proven(false)) ??
    (await proven(true)) ??
    refused('the assertion is not signed by a key of its document (or is not good)');
  await recordFirstUse(ctx, credential, client.thumbprints, command.metadata);
  return credential;
}
