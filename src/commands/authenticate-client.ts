import { timingSafeEqual } from 'node:crypto';
import { acceptedSecretHashes, decideClientAuthentication } from '../domain/decisions.js';
import type { CredentialView } from '../domain/credential-view.js';
import { streams, type DomainEvent, type EventMetadata } from '../domain/events.js';
import { InvalidClientError } from '../errors/errors.js';
import type { CommandContext } from './context.js';

// Compared against when there is no hash, so every path costs the same two HMACs.
const NO_HASH = Buffer.alloc(32);

/**
 * Whether `secret` is one of the credential's accepted secrets right now (the current one, or
 * the one a rotation replaced while its overlap runs). Always two constant-time comparisons.
 */
export function clientSecretMatches(
  ctx: CommandContext,
  secret: string,
  credential: CredentialView | undefined,
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

/** Records a failed authentication of a known client (never the secret tried). */
export async function recordAuthenticationFailure(
  ctx: CommandContext,
  spaceId: string,
  failure: DomainEvent<'client-authentication-failed'>,
): Promise<void> {
  await ctx.events.appendNewStream({
    spaceId,
    streamId: streams.authenticationFailure(failure.eventId),
    events: [failure],
  });
}

/**
 * Authenticates a client by id and secret (introspection, revocation): the active credential, or
 * InvalidClientError after recording the failure of a known client.
 */
export async function authenticateClient(
  ctx: CommandContext,
  command: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly metadata: EventMetadata;
  },
): Promise<CredentialView> {
  const credential = await ctx.credentials.find(command.clientId);
  const matches = clientSecretMatches(ctx, command.clientSecret, credential);
  const outcome = decideClientAuthentication(credential, matches, command.metadata, ctx.ids);
  if (outcome.ok) return outcome.credential;
  if (outcome.failure && credential) {
    await recordAuthenticationFailure(ctx, credential.spaceId, outcome.failure);
  }
  throw new InvalidClientError();
}
