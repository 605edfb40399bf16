import { ConflictError } from '../../errors/errors.js';
import { generateClientSecret } from '../../crypto/secrets.js';
import type { CommandContext } from '../context.js';
import { handle } from '../handle.js';
import {
  revokeCredentialDecider,
  rotateSecretDecider,
  updateCredentialDecider,
  type CredentialCommand,
  type CredentialPorts,
  type UpdateCredential,
} from './deciders.js';
import {
  keptRotation,
  rotationKey,
  rotationToKeep,
  type RotatedSecret,
} from './idempotent-rotation.js';

export type { CredentialCommand } from './deciders.js';

/** What the changes of a credential use. */
export type CredentialChangeContext = CredentialPorts & Pick<CommandContext, 'events'>;

/**
 * Rotates a credential's secret: a new secret (returned once, never stored in the clear), the old
 * one valid for `overlapSeconds` more. With an `idempotencyKey`, the response is kept sealed for
 * IDEMPOTENCY_KEY_TTL_SECONDS in the rotation's transaction, and a retry with the same key gets it
 * again instead of rotating twice (which would end the secret still in use).
 */
export async function rotateSecret(
  ctx: CredentialChangeContext &
    Pick<CommandContext, 'hasher' | 'kek' | 'idempotentResponses' | 'clock' | 'ids'>,
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
  const answer = (rotated: { readonly previousSecretExpiresAt: number | null }) => ({
    clientSecret,
    previousSecretExpiresAt: new Date(rotated.previousSecretExpiresAt!),
  });
  try {
    const { state } = await handle(ctx.events, rotateSecretDecider(ctx), {
      ...command,
      newSecretHash: ctx.hasher.hash(clientSecret).toString('base64url'),
      ...(key && {
        idempotencyKeyHash: key.keyHash,
        keep: (rotated) => rotationToKeep(ctx, key, answer(rotated)),
      }),
    });
    return answer(state!);
  } catch (error) {
    // A concurrent request with the same key won: answer as it did. It won either the
    // credential's stream (we conflicted on its version) or, when we read the credential after
    // its commit but looked for a kept response before it, the key's row (a conflict that
    // rolled our rotation back whole).
    const winner = error instanceof ConflictError && key && (await keptRotation(ctx, key, command));
    if (winner) return winner;
    throw error;
  }
}

/** Revokes a credential; revoking a revoked one changes and records nothing. */
export async function revokeCredential(
  ctx: CredentialChangeContext,
  command: CredentialCommand & { readonly reason: string | null },
): Promise<void> {
  await handle(ctx.events, revokeCredentialDecider(ctx), command);
}

/**
 * Changes any of a credential's keys, scopes and rate limit in one request: decided together on
 * one reading, appended together, so a refusal of one leaves the others unchanged.
 */
export async function updateCredential(
  ctx: CredentialChangeContext,
  command: UpdateCredential,
): Promise<void> {
  await handle(ctx.events, updateCredentialDecider(ctx), command);
}
