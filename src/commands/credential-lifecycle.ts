import {
  decideChangeRateLimit,
  decideRevokeCredential,
  decideRotateSecret,
} from '../domain/decisions.js';
import type { CredentialView } from '../domain/credential-view.js';
import { streams, type DomainEvent, type EventMetadata } from '../domain/events.js';
import { ConflictError, NotFoundError, InvalidRequestError } from '../errors/errors.js';
import { projectCredentialEvents } from '../projections/credentials.js';
import { generateClientSecret } from '../tokens/secrets.js';
import type { CommandContext } from './context.js';

/** Who asks, for which credential of which space. */
export interface CredentialCommand {
  readonly spaceId: string;
  readonly clientId: string;
  readonly actor: string;
  readonly metadata: EventMetadata;
}

/**
 * Appends a lifecycle event to the credential's stream at the version it was read at, with the
 * read model updated in the same transaction; 409 if anything changed it since. The change then
 * holds at once on this instance (its cache entry is dropped).
 */
async function appendToCredential(
  ctx: CommandContext,
  command: CredentialCommand,
  credential: CredentialView,
  event: DomainEvent,
): Promise<void> {
  const appended = await ctx.events.append(
    {
      spaceId: command.spaceId,
      streamId: streams.credential(command.clientId),
      expectedVersion: credential.version,
      events: [event],
    },
    projectCredentialEvents,
  );
  if (!appended.ok) throw new ConflictError('the credential changed meanwhile; retry the request');
  ctx.credentials.forget(command.clientId);
}

const notFound = (clientId: string) =>
  new NotFoundError(`no credential "${clientId}" in this space`);

/**
 * Rotates a credential's secret: a new secret (returned once, never stored), the old one valid for
 * `overlapSeconds` more. Optimistic on the credential's stream: a concurrent change makes it 409.
 */
export async function rotateSecret(
  ctx: CommandContext,
  command: CredentialCommand & { readonly overlapSeconds: number },
): Promise<{ readonly clientSecret: string; readonly previousSecretExpiresAt: Date }> {
  const credential = await ctx.credentials.findFresh(command.clientId);
  const clientSecret = generateClientSecret();
  const decision = decideRotateSecret(
    { ...command, newSecretHash: ctx.hasher.hash(clientSecret).toString('base64url') },
    credential,
    ctx.clock,
    ctx.ids,
  );
  if (!decision.ok) {
    if (decision.error === 'not_found') throw notFound(command.clientId);
    throw new InvalidRequestError('a revoked credential cannot get a new secret');
  }
  await appendToCredential(ctx, command, decision.credential, decision.event);
  return { clientSecret, previousSecretExpiresAt: decision.previousSecretExpiresAt };
}

/** Revokes a credential; revoking a revoked one changes and records nothing. */
export async function revokeCredential(
  ctx: CommandContext,
  command: CredentialCommand & { readonly reason: string | null },
): Promise<void> {
  const credential = await ctx.credentials.findFresh(command.clientId);
  const decision = decideRevokeCredential(command, credential, ctx.ids);
  if (!decision.ok) throw notFound(command.clientId);
  if (!decision.event) return;
  await appendToCredential(ctx, command, decision.credential, decision.event);
}

/** Sets (or, with null, clears) a credential's own requests-per-minute budget. */
export async function changeRateLimit(
  ctx: CommandContext,
  command: CredentialCommand & { readonly rateLimitPerMinute: number | null },
): Promise<void> {
  const credential = await ctx.credentials.findFresh(command.clientId);
  const decision = decideChangeRateLimit(command, credential, ctx.ids);
  if (!decision.ok) {
    if (decision.error === 'not_found') throw notFound(command.clientId);
    throw new InvalidRequestError('a revoked credential has no rate limit to change');
  }
  if (!decision.event) return;
  await appendToCredential(ctx, command, decision.credential, decision.event);
}
