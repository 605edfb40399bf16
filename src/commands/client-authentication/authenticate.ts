import { timingSafeEqual } from 'node:crypto';
import { decideClientAuthentication } from '../../domain/client-authentication/decide.js';
import { acceptedSecretHashes, type Credential } from '../../domain/credential/state.js';
import type { DomainEvent, EventMetadata } from '../../domain/events.js';
import { InvalidClientError } from '../../errors/errors.js';
import { isClientIdShaped } from '../../crypto/secrets.js';
import type { CommandContext } from '../context.js';
import { assertionProvesClient } from './assertion.js';

// Compared against when there is no hash, so every path costs the same two HMACs.
const NO_HASH = Buffer.alloc(32);

/**
 * Whether `secret` is one of the credential's accepted secrets right now (the current one, or
 * the one a rotation replaced while its overlap runs). Always two constant-time comparisons.
 */
function clientSecretMatches(
  ctx: CommandContext,
  secret: string,
  credential: Credential | undefined,
): boolean {
  const [current, previous] = acceptedSecretHashes(credential, ctx.clock.now());
  const candidate = ctx.hasher.hash(secret);
  const same = (stored: Buffer | null) =>
    timingSafeEqual(candidate, stored && stored.length === candidate.length ? stored : NO_HASH) &&
    stored !== null;
  const matchesCurrent = same(current);
  const matchesPrevious = same(previous);
  return matchesCurrent || matchesPrevious;
}

/**
 * After a wrong secret: 429 when this client and source IP failed too often this minute. The
 * refused attempt is counted for the client's failure summary, not recorded on its own.
 */
function refuseIfLockedOut(
  ctx: CommandContext,
  clientId: string,
  credential: Credential | undefined,
  ip: string,
): void {
  try {
    ctx.limits.assertClientNotLockedOut(clientId, ip);
  } catch (error) {
    if (credential) ctx.failures.refused(credential.spaceId, clientId, ip);
    throw error;
  }
}

/**
 * After a failed authentication: counts against the (client, IP) budget and records the failure
 * of a known client within its per-minute event budget (never the secret tried).
 */
async function recordAuthenticationFailure(
  ctx: CommandContext,
  clientId: string,
  ip: string,
  known?: {
    readonly spaceId: string;
    readonly failure: DomainEvent<'client-authentication-failed'>;
  },
): Promise<void> {
  ctx.limits.failedClientAuthentication(clientId, ip);
  if (known) await ctx.failures.failed(known.spaceId, known.failure, ip);
}

/** How a client proves who it is: its secret, or an assertion signed with its key. */
export type ClientProof =
  | { readonly method: 'secret'; readonly clientId: string; readonly secret: string }
  | { readonly method: 'assertion'; readonly clientId: string; readonly assertion: string };

/**
 * Authenticates a client (the grant, introspection, revocation) by its secret or, for a
 * secretless client, a signed assertion (private_key_jwt): the active credential, or
 * InvalidClientError after recording the failure of a known client. The right proof is always
 * served: the lockout only stops guessing, so nobody can lock a storefront out of its tokens by
 * failing on purpose from the address it shares (a load balancer's, a NAT's). An id that cannot
 * be ours is refused before any lookup or count.
 */
export async function authenticateClient(
  ctx: CommandContext,
  command: { readonly proof: ClientProof; readonly metadata: EventMetadata },
): Promise<Credential> {
  const { proof } = command;
  if (!isClientIdShaped(proof.clientId)) throw new InvalidClientError();
  const credential = await ctx.credentials.find(proof.clientId);
  const ip = command.metadata.client_ip;
  const matches =
    proof.method === 'secret'
      ? clientSecretMatches(ctx, proof.secret, credential)
      : await assertionProvesClient(ctx, proof.assertion, credential);
  const outcome = decideClientAuthentication(
    {
      secretMatches: matches,
      method: proof.method,
      eventId: ctx.ids.eventId(),
      metadata: command.metadata,
    },
    credential,
  );
  if (outcome.ok) return outcome.facts;
  refuseIfLockedOut(ctx, proof.clientId, credential, ip);
  await recordAuthenticationFailure(
    ctx,
    proof.clientId,
    ip,
    outcome.events[0] && credential
      ? { spaceId: credential.spaceId, failure: outcome.events[0] }
      : undefined,
  );
  throw new InvalidClientError();
}
