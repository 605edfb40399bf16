import type { CredentialDecision, CredentialRefusal } from '../../domain/credential/decide.js';
import { decideRevokeCredential, decideRotateSecret } from '../../domain/credential/decide.js';
import { decideUpdateCredential } from '../../domain/credential/decide-update.js';
import type { CredentialEvent } from '../../domain/credential/evolve.js';
import type { Credential } from '../../domain/credential/state.js';
import type { ClientJwks, EventMetadata } from '../../domain/events.js';
import {
  ConflictError,
  InvalidRequestError,
  InvalidScopeError,
  NotFoundError,
} from '../../errors/errors.js';
import type { InlineWrites } from '../../projections/inline-writes.js';
import { generateClientSecret } from '../../crypto/secrets.js';
import type { CommandContext } from '../context.js';
import { appendToCredential } from './append.js';
import {
  keptRotation,
  rotationKey,
  rotationToKeep,
  type RotatedSecret,
} from './idempotent-rotation.js';

/** Who asks, for which credential of which space. */
export interface CredentialCommand {
  readonly spaceId: string;
  readonly clientId: string;
  readonly actor: string;
  readonly metadata: EventMetadata;
}

type Refusals = Readonly<Record<CredentialRefusal, (clientId: string, detail?: string) => Error>>;

/** The answer to a client limit above its space's ceiling, named by its field. */
export function overSpaceCeiling(ctx: Pick<CommandContext, 'spaceRateLimitPerMinute'>): Error {
  const message = `must not exceed the space's ceiling of ${ctx.spaceRateLimitPerMinute} per minute`;
  return new InvalidRequestError(`rate_limit_per_minute ${message}`, [
    { field: 'rate_limit_per_minute', message },
  ]);
}

/** A scope no audience's catalog lists, named by its field. */
export function unknownScope(scope: string | undefined): Error {
  const message = `"${scope}" is not in the scope catalog (GET /.well-known/oauth-authorization-server lists scopes_supported)`;
  return new InvalidScopeError(`scopes: ${message}`);
}

/** What a refusal means to the caller: 404 for another space's or no credential, else 400. */
const refusals = (ctx: CommandContext, whenRevoked: string): Refusals => ({
  over_space_ceiling: () => overSpaceCeiling(ctx),
  invalid_scope: (_clientId, scope) => unknownScope(scope),
  not_found: (clientId) => new NotFoundError(`no credential "${clientId}" in this space`),
  revoked: () => new InvalidRequestError(whenRevoked),
  wrong_method: () =>
    new InvalidRequestError(
      'this credential authenticates the other way (a secret, or its keys with private_key_jwt)',
    ),
});

/**
 * Reads the credential fresh, decides, and appends what was decided (nothing when the decision
 * says it changes nothing). Optimistic on the credential's stream: a concurrent change is a 409.
 */
async function change<Type extends CredentialEvent['type']>(
  ctx: CommandContext,
  command: CredentialCommand,
  refused: Refusals,
  decide: (state: Credential | undefined, eventId: string) => CredentialDecision<Type>,
  alsoInTransaction?: (writes: InlineWrites) => Promise<void>,
): Promise<Credential> {
  const state = await ctx.credentials.findFresh(command.clientId);
  const decision = decide(state, ctx.ids.eventId());
  if (!decision.ok) throw refused[decision.refusal](command.clientId, decision.detail);
  if (decision.events.length === 0) return state!;
  return appendToCredential(ctx, command, state, decision.events, alsoInTransaction);
}

/**
 * Rotates a credential's secret: a new secret (returned once, never stored in the clear), the old
 * one valid for `overlapSeconds` more. With an `idempotencyKey`, the response is kept sealed for
 * IDEMPOTENCY_KEY_TTL_SECONDS in the rotation's transaction, and a retry with the same key gets it
 * again instead of rotating twice (which would end the secret still in use).
 */
export async function rotateSecret(
  ctx: CommandContext,
  command: CredentialCommand & {
    readonly overlapSeconds: number;
    readonly idempotencyKey?: string;
  },
): Promise<RotatedSecret> {
  const key =
    command.idempotencyKey === undefined
      ? undefined
      : rotationKey(command.spaceId, command.idempotencyKey, command);
  const kept = key && (await keptRotation(ctx, key, command));
  if (kept) return kept;
  const clientSecret = generateClientSecret();
  const newSecretHash = ctx.hasher.hash(clientSecret).toString('base64url');
  let response: RotatedSecret | undefined;
  try {
    await change(
      ctx,
      command,
      refusals(ctx, 'a revoked credential cannot get a new secret'),
      (state, eventId) => {
        const decision = decideRotateSecret(
          {
            ...command,
            eventId,
            now: ctx.clock.now(),
            newSecretHash,
            idempotencyKeyHash: key?.keyHash,
          },
          state,
        );
        if (decision.ok) {
          const expiresAt = decision.events[0]!.data.previous_secret_expires_at;
          response = { clientSecret, previousSecretExpiresAt: new Date(expiresAt) };
        }
        return decision;
      },
      key && ((writes) => writes.idempotentResponse(rotationToKeep(ctx, key, response!))),
    );
  } catch (error) {
    // A concurrent request with the same key won: answer as it did. It won either the
    // credential's stream (we conflicted on its version) or, when we read the credential after
    // its commit but looked for a kept response before it, the key's row (a conflict that
    // rolled our rotation back whole).
    const winner = error instanceof ConflictError && key && (await keptRotation(ctx, key, command));
    if (winner) return winner;
    throw error;
  }
  return response!;
}

/** Revokes a credential; revoking a revoked one changes and records nothing. */
export async function revokeCredential(
  ctx: CommandContext,
  command: CredentialCommand & { readonly reason: string | null },
): Promise<void> {
  await change(ctx, command, refusals(ctx, 'the credential is revoked'), (state, eventId) =>
    decideRevokeCredential({ ...command, eventId }, state),
  );
}

/**
 * Changes any of a credential's keys, scopes and rate limit in one request: decided together on
 * one reading, appended together, so a refusal of one leaves the others unchanged.
 */
export async function updateCredential(
  ctx: CommandContext,
  command: CredentialCommand & {
    readonly jwks?: ClientJwks;
    readonly scopes?: readonly string[];
    readonly rateLimitPerMinute?: number | null;
  },
): Promise<void> {
  await change(
    ctx,
    command,
    refusals(ctx, 'a revoked credential cannot be changed'),
    (state, eventId) => {
      let first: string | undefined = eventId;
      const eventIds = () => {
        const id = first ?? ctx.ids.eventId();
        first = undefined;
        return id;
      };
      return decideUpdateCredential(
        {
          ...command,
          eventIds,
          catalog: ctx.scopeCatalog,
          spaceCeiling: ctx.spaceRateLimitPerMinute,
        },
        state,
      );
    },
  );
}
