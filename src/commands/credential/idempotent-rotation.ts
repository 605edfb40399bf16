import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, IdempotencyKeyReusedError } from '../../errors/errors.js';
import type { IdempotentResponse } from '../../projections/idempotent-responses.js';
import { openValue, sealValue } from '../../crypto/key-encryption.js';
import type { CommandContext } from '../context.js';
import { decideRecordSecretReplay } from '../../domain/credential/decide.js';
import { streams, type EventMetadata } from '../../domain/events.js';
import { msOf } from '../../domain/times.js';
import { handle } from '../handle.js';
import { recordingDecider } from '../recording.js';

/** What a rotation answers; kept sealed so a retry with the same key gets it again. */
export interface RotatedSecret {
  readonly clientSecret: string;
  readonly previousSecretExpiresAt: Date;
}

const keptSchema = z.object({
  client_secret: z.string(),
  previous_secret_expires_at: z.iso.datetime(),
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64url');

/** An Idempotency-Key hashed with its caller: another admin's same text never gets this answer. */
export interface IdempotencyKey {
  readonly spaceId: string;
  /** SHA-256 of the caller (actor) and the key's text. */
  readonly keyHash: string;
  /** The operation, its target and parameters, hashed: the key must mean the same request. */
  readonly requestHash: string;
}

/** The hashed key of a rotation request by `request.actor`. */
export function rotationKey(
  spaceId: string,
  key: string,
  request: { readonly clientId: string; readonly overlapSeconds: number; readonly actor: string },
): IdempotencyKey {
  return {
    spaceId,
    keyHash: sha256(JSON.stringify([request.actor, key])),
    requestHash: sha256(
      JSON.stringify(['rotate-secret', request.clientId, request.overlapSeconds]),
    ),
  };
}

/** A kept answer shown again: recorded in a stream of its own. */
const secretReplays = recordingDecider<
  Parameters<typeof decideRecordSecretReplay>[0] & { readonly spaceId: string }
>({
  stream: (command) => ({
    spaceId: command.spaceId,
    stream: streams.secretReplay(command.eventId),
  }),
  decide: decideRecordSecretReplay,
});

const binding = (key: IdempotencyKey) => `idempotent-response:${key.spaceId}:${key.keyHash}`;

/** The kept answer for this key, recorded as shown first; refused if the key meant another request. */
export async function keptRotation(
  ctx: Pick<CommandContext, 'idempotentResponses' | 'kek' | 'ids' | 'events'>,
  key: IdempotencyKey,
  replay: { readonly clientId: string; readonly actor: string; readonly metadata: EventMetadata },
): Promise<RotatedSecret | undefined> {
  const kept = await ctx.idempotentResponses.find(key.spaceId, key.keyHash);
  if (!kept) return undefined;
  if (kept.requestHash !== key.requestHash) {
    throw new IdempotencyKeyReusedError(
      'this Idempotency-Key was used for another request (another credential or overlap_seconds)',
    );
  }
  const opened = openValue(ctx.kek, binding(key), kept.sealedResponse);
  if (opened === undefined) {
    throw new ConflictError(
      'this Idempotency-Key was already used and its response was sealed under a retired ' +
        'key-encryption key; rotate again with a new key',
    );
  }
  const response = keptSchema.parse(JSON.parse(opened));
  await handle(ctx.events, secretReplays, {
    ...replay,
    spaceId: key.spaceId,
    eventId: ctx.ids.eventId(),
    idempotencyKeyHash: key.keyHash,
  });
  return {
    clientSecret: response.client_secret,
    previousSecretExpiresAt: new Date(response.previous_secret_expires_at),
  };
}

/** The row that keeps `response` for retries, sealed under the KEK and bound to its key. */
export function rotationToKeep(
  ctx: Pick<CommandContext, 'kek' | 'clock' | 'idempotentResponses'>,
  key: IdempotencyKey,
  response: RotatedSecret,
): IdempotentResponse {
  const plaintext = JSON.stringify({
    client_secret: response.clientSecret,
    previous_secret_expires_at: response.previousSecretExpiresAt.toISOString(),
  });
  return {
    ...key,
    sealedResponse: sealValue(ctx.kek, binding(key), plaintext),
    expiresAt: new Date(ctx.clock.now() + msOf(ctx.idempotentResponses.ttlSeconds)),
  };
}
