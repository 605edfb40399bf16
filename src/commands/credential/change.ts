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
  type RevokeCredential,
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

/** Rotates a secret; with an `idempotencyKey` the sealed answer is kept, so a retry never rotates twice. */
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
    // A concurrent request with the same key won (stream version or key row): answer as it did.
    const winner = error instanceof ConflictError && key && (await keptRotation(ctx, key, command));
    if (winner) return winner;
    throw error;
  }
}

/** Revokes a credential; revoking a revoked one changes and records nothing. */
export async function revokeCredential(
  ctx: CredentialChangeContext,
  command: RevokeCredential,
): Promise<void> {
  await handle(ctx.events, revokeCredentialDecider(ctx), command);
}

/** Changes keys, scopes and rate limit decided and appended together: one refusal changes nothing. */
export async function updateCredential(
  ctx: CredentialChangeContext,
  command: UpdateCredential,
): Promise<void> {
  await handle(ctx.events, updateCredentialDecider(ctx), command);
}
