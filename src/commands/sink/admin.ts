import { randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from '../../crypto/key-encryption.js';
import type { SecretHasher } from '../../crypto/secrets.js';
import type { EventMetadata, SinkTarget } from '../../domain/events.js';
import type { IdGenerator } from '../../domain/ports.js';
import {
  decideChangeSink,
  decideCreateSink,
  decidePauseSink,
  decideResumeSink,
} from '../../domain/sink/decide.js';
import type { EventStore } from '../../event-store/event-store.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import { newWebhookSecret } from '../../delivery/standard-webhooks.js';
import {
  recordedTarget,
  sealSinkPath,
  sealSinkSecret,
  type RecordedTarget,
} from '../../delivery/sinks.js';
import type { SinkWrites, WithSinkWrites } from '../../delivery/sink-writes.js';
import { targetRefusal, type TargetRules } from '../../delivery/target-rules.js';
import { shownFailure } from '../../delivery/transport.js';
import type { SinkStatus } from '../../delivery/status.js';

/** What a space admin's sink commands use. */
export interface SinkAdminContext {
  readonly events: Pick<EventStore<WithSinkWrites>, 'transact'>;
  readonly kek: KeyEncryptionKey;
  readonly ids: IdGenerator;
  readonly rules: TargetRules;
  /** Keyed digests (SECRET_HASH_KEY): a webhook's path and query are recorded as one. */
  readonly hasher: Pick<SecretHasher, 'hash'>;
  /** How many sinks (not deleted) a space may have: SINK_MAX_PER_SPACE. */
  readonly maxSinksPerSpace: number;
}

/** Who asks, in which space, about which sink. */
export interface SinkCommand {
  readonly spaceId: string;
  readonly sinkId: string;
  readonly metadata: EventMetadata;
}

/**
 * A change's answer: the sink as it stands, read in the change's own transaction (a read after
 * the commit that failed would answer an error for a change made, and lose a webhook's secret:
 * issue 51, item 6), and a webhook's new secret if one was made: the only time it is shown.
 */
export interface SinkSecret {
  readonly sinkId: string;
  readonly secret?: string;
  readonly status: SinkStatus;
}

/** A space sink's id: `snk_` and 96 random bits (operator sinks are `operator-…`). */
const newSinkId = () => `snk_${randomBytes(12).toString('base64url')}`;

/**
 * The target as it is recorded (a webhook's path and query apart, to be sealed), or a 400 naming
 * why this deployment refuses it (SSRF rules, target-rules.ts).
 */
function allowed(ctx: SinkAdminContext, target: SinkTarget): RecordedTarget {
  const refusal = targetRefusal(target, ctx.rules);
  if (refusal) {
    throw new InvalidRequestError(`sink target refused: ${refusal}`, [
      { field: 'target', message: refusal },
    ]);
  }
  return recordedTarget(target, (text) => ctx.hasher.hash(text));
}

/** The sealed path of a recorded target, for its row. */
const sealedPath = (ctx: SinkAdminContext, sinkId: string, recorded: RecordedTarget | undefined) =>
  recorded?.path === undefined ? {} : { sealedPath: sealSinkPath(ctx.kek, sinkId, recorded.path) };

/**
 * An operator's sink is not a space's to change: it is not found there, as another space's, with
 * the very answer of an id that does not exist (naming why would make the operator's ids
 * enumerable: issue 51, item 11).
 */
export const refused = (): never => {
  throw new NotFoundError('no sink of that id in this space');
};

/** Creates a space's sink: sink-created and its row in one transaction; a webhook's secret made. */
export async function createSink(
  ctx: SinkAdminContext,
  command: Omit<SinkCommand, 'sinkId'> & { readonly name: string; readonly target: SinkTarget },
): Promise<SinkSecret> {
  const recorded = allowed(ctx, command.target);
  const { target } = recorded;
  const sinkId = newSinkId();
  const secret = target.kind === 'webhook' ? newWebhookSecret() : undefined;
  return ctx.events.transact(async ({ writes: { sinks }, append }) => {
    // Creates in one space, one at a time: two at once cannot both see room for one more.
    await sinks.lockSpace(command.spaceId);
    const decision = decideCreateSink({
      ...command,
      eventId: ctx.ids.eventId(),
      sinkId,
      target,
      sinks: { count: await sinks.count(command.spaceId), limit: ctx.maxSinksPerSpace },
    });
    if (!decision.ok) {
      throw new ConflictError(
        `this space has its limit of ${ctx.maxSinksPerSpace} audit sinks (SINK_MAX_PER_SPACE): delete one (DELETE /v1/sinks/{sink_id}) before creating another`,
      );
    }
    await append({ ...decision.facts, events: decision.events });
    await sinks.write({
      sinkId,
      spaceId: command.spaceId,
      name: command.name,
      target,
      ...(secret ? { sealedSecret: sealSinkSecret(ctx.kek, sinkId, secret) } : {}),
      ...sealedPath(ctx, sinkId, recorded),
    });
    return { sinkId, ...(secret ? { secret } : {}), status: await statusIn(sinks, sinkId) };
  });
}

/**
 * Renames a sink, points it elsewhere, or gives a webhook a new secret (asked, or because it
 * became a webhook): sink-changed and the row under the row's lock. The cursor stays.
 */
export async function changeSink(
  ctx: SinkAdminContext,
  command: SinkCommand & {
    readonly name?: string;
    readonly target?: SinkTarget;
    readonly rotateSecret?: boolean;
  },
): Promise<SinkSecret> {
  const recorded = command.target ? allowed(ctx, command.target) : undefined;
  return ctx.events.transact(async ({ writes: { sinks }, append }) => {
    const state = await sinks.lockedSink(command.sinkId);
    const target = recorded?.target ?? state?.target;
    const name = command.name ?? state?.name;
    if (!state || !target || name === undefined) return refused();
    const becameWebhook = target.kind === 'webhook' && state.target.kind !== 'webhook';
    const secret =
      target.kind === 'webhook' && (command.rotateSecret === true || becameWebhook)
        ? newWebhookSecret()
        : undefined;
    const decision = decideChangeSink(
      {
        eventId: ctx.ids.eventId(),
        metadata: command.metadata,
        spaceId: command.spaceId,
        name,
        target,
        secretRotated: secret !== undefined,
      },
      state,
    );
    if (!decision.ok) return refused();
    if (decision.events.length === 0) {
      return { sinkId: state.sinkId, status: await statusIn(sinks, state.sinkId) };
    }
    await append({ ...decision.facts, events: decision.events });
    await sinks.write({
      sinkId: state.sinkId,
      spaceId: state.spaceId,
      name,
      target,
      ...(secret ? { sealedSecret: sealSinkSecret(ctx.kek, state.sinkId, secret) } : {}),
      ...sealedPath(ctx, state.sinkId, recorded),
    });
    return {
      sinkId: state.sinkId,
      ...(secret ? { secret } : {}),
      status: await statusIn(sinks, state.sinkId),
    };
  });
}

/** An admin pauses their space's sink: it waits, cursor kept, until an admin resumes it. */
export async function pauseSink(ctx: SinkAdminContext, command: SinkCommand): Promise<SinkStatus> {
  return ctx.events.transact(async ({ writes: { sinks }, append }) => {
    const state = await sinks.lockedSink(command.sinkId);
    const cursor = await sinks.cursor(command.sinkId);
    const decision = decidePauseSink(
      {
        eventId: ctx.ids.eventId(),
        metadata: command.metadata,
        spaceId: command.spaceId,
        reason: 'admin',
        attempts: cursor?.attempts ?? 0,
        lastError: shownFailure(cursor?.last_error ?? null),
      },
      state,
    );
    if (!decision.ok) return refused();
    if (decision.events.length > 0) {
      await append({ ...decision.facts, events: decision.events });
      await sinks.paused(command.sinkId, { reason: 'admin' });
    }
    return statusIn(sinks, command.sinkId);
  });
}

/** An admin resumes their space's sink: delivery goes on from its cursor, retries from zero. */
export async function resumeSink(ctx: SinkAdminContext, command: SinkCommand): Promise<SinkStatus> {
  return ctx.events.transact(async ({ writes: { sinks }, append }) => {
    const state = await sinks.lockedSink(command.sinkId);
    const decision = decideResumeSink(
      {
        eventId: ctx.ids.eventId(),
        metadata: command.metadata,
        spaceId: command.spaceId,
        reason: 'admin',
      },
      state,
    );
    if (!decision.ok) return refused();
    if (decision.events.length > 0) {
      await append({ ...decision.facts, events: decision.events });
      await sinks.paused(command.sinkId, false);
    }
    return statusIn(sinks, command.sinkId);
  });
}

/** One sink's status, in the transaction of the change that answers with it. */
async function statusIn(sinks: SinkWrites, sinkId: string): Promise<SinkStatus> {
  return (await sinks.status(sinkId)) ?? refused();
}
