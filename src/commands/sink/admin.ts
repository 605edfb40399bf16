import { randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from '../../crypto/key-encryption.js';
import type { SecretHasher } from '../../crypto/secrets.js';
import type { SinkTarget } from '../../domain/events.js';
import type { SinkRefusal } from '../../domain/sink/decide.js';
import {
  isPushed,
  isSignalStream,
  keepsSecret,
  recordedTarget,
  signalsAsked,
  type RecordedTarget,
} from '../../domain/sink/targets.js';
import type { IdGenerator } from '../../domain/ports.js';
import { receiverTargetRules } from '../../domain/policy.js';
import type { EventStore } from '#event-log/event-store.js';
import { InvalidRequestError } from '../../errors/errors.js';
import { newWebhookSecret } from '#outbound/standard-webhooks.js';
import { sealSinkPath, sealSinkSecret } from '../../delivery/sinks.js';
import type { WithSinkWrites } from '../../delivery/sink-writes.js';
import { targetRefusal, type TargetRules } from '#outbound/target-rules.js';
import type { SinkStatus } from '../../delivery/status.js';
import { handleLocked, type LockedDecider, type Placed } from '../handle.js';
import {
  changeSinkDecider,
  createSinkDecider,
  pauseSinkDecider,
  refused,
  resumeSinkDecider,
  type SinkChange,
} from './deciders.js';

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
  /** Whether a space has keys of its own: a signal stream's tokens are signed by them alone. */
  readonly signsOwn: (spaceId: string) => Promise<boolean>;
}

/** Who asks, in which space, about which sink (its event's id is made here). */
export type SinkCommand = Omit<SinkChange, 'eventId'>;

/** The sink as read in the change's transaction (a read after would lose a new secret), and that secret. */
export interface SinkSecret {
  readonly sinkId: string;
  readonly secret?: string;
  readonly status: SinkStatus;
}

/** A space sink's id: `snk_` and 96 random bits (operator sinks are `operator-…`). */
const newSinkId = () => `snk_${randomBytes(12).toString('base64url')}`;

/**
 * The target as recorded (webhook path and query apart, to seal), or a 400 naming the SSRF rule,
 * or why a signal stream cannot be: its Security Event Tokens are signed by the space's own ring
 * and name its issuer (a shared ring's SET could be any space's), so the space must have one.
 */
async function allowed(
  ctx: SinkAdminContext,
  asker: { readonly spaceId: string; readonly receiver?: string | undefined },
  target: SinkTarget,
): Promise<RecordedTarget> {
  const { spaceId } = asker;
  const rules = asker.receiver === undefined ? ctx.rules : receiverTargetRules(ctx.rules);
  const refusal = isPushed(target) ? targetRefusal(target, rules) : undefined;
  if (refusal) {
    throw new InvalidRequestError(`sink target refused: ${refusal}`, [
      { field: 'target', message: refusal },
    ]);
  }
  if (signalsAsked(target) && !isSignalStream(target)) {
    throw new InvalidRequestError('events are chosen for a signal stream only', [
      { field: 'target.events', message: 'give format: "secevent" too, or no events' },
    ]);
  }
  if (isSignalStream(target) && !(await ctx.signsOwn(spaceId))) {
    const message =
      "a signal stream's tokens are signed by the space's own keys: turn them on first (POST /v1/space/signing-keys)";
    throw new InvalidRequestError(message, [{ field: 'target.format', message }]);
  }
  return recordedTarget(target, (text) => ctx.hasher.hash(text));
}

/** The sealed path of a recorded target, for its row. */
const sealedPath = (ctx: SinkAdminContext, sinkId: string, recorded: RecordedTarget | undefined) =>
  recorded?.path === undefined ? {} : { sealedPath: sealSinkPath(ctx.kek, sinkId, recorded.path) };

/** One sink's status, in the transaction of the change that answers with it. */
const statusIn = async ({ sinks }: WithSinkWrites, sinkId: string): Promise<SinkStatus> =>
  (await sinks.status(sinkId)) ?? refused();

/** Creates a space's sink: sink-created and its row in one transaction; a webhook's secret made. */
export async function createSink(
  ctx: SinkAdminContext,
  command: Omit<SinkCommand, 'sinkId'> & {
    readonly name: string;
    readonly target: SinkTarget;
    /** A receiver's stream: the `authorization_header` it gave, kept as its secret. */
    readonly givenSecret?: string;
  },
): Promise<SinkSecret> {
  const { givenSecret, ...asked } = command;
  const recorded = await allowed(ctx, command, command.target);
  const sinkId = newSinkId();
  const secret =
    command.receiver !== undefined
      ? givenSecret
      : keepsSecret(recorded.target)
        ? newWebhookSecret()
        : undefined;
  const change = {
    ...asked,
    sinkId,
    target: recorded.target,
    eventId: ctx.ids.eventId(),
    maxSinks: ctx.maxSinksPerSpace,
    sealed: {
      ...(secret ? { sealedSecret: sealSinkSecret(ctx.kek, sinkId, secret) } : {}),
      ...sealedPath(ctx, sinkId, recorded),
    },
  };
  return handleLocked(ctx.events, createSinkDecider, change, async (writes) => ({
    sinkId,
    ...(secret ? { secret } : {}),
    status: await statusIn(writes, sinkId),
  }));
}

/** Renames, repoints or re-secrets a sink under the row's lock; the cursor stays. */
export async function changeSink(
  ctx: SinkAdminContext,
  command: SinkCommand & {
    readonly name?: string;
    readonly target?: SinkTarget;
    readonly rotateSecret?: boolean;
    /** The target the change was built from (a receiver's read): another now is a 409. */
    readonly expectedTarget?: SinkTarget;
    /** A receiver's stream: its new `authorization_header`, or null for none. */
    readonly givenSecret?: string | null;
  },
): Promise<SinkSecret> {
  const recorded = command.target ? await allowed(ctx, command, command.target) : undefined;
  const change = {
    ...command,
    target: recorded?.target,
    eventId: ctx.ids.eventId(),
    newSecret: newWebhookSecret,
    seal: (sinkId: string, secret: string | undefined) => ({
      ...(secret ? { sealedSecret: sealSinkSecret(ctx.kek, sinkId, secret) } : {}),
      ...sealedPath(ctx, sinkId, recorded),
    }),
  };
  return handleLocked(ctx.events, changeSinkDecider, change, async (writes, done) => ({
    sinkId: command.sinkId,
    ...(done.changed && done.facts.secret ? { secret: done.facts.secret } : {}),
    status: await statusIn(writes, command.sinkId),
  }));
}

const statusChange =
  <State>(decider: LockedDecider<SinkChange, State, SinkRefusal, Placed, WithSinkWrites>) =>
  (ctx: SinkAdminContext, command: SinkCommand): Promise<SinkStatus> =>
    handleLocked(ctx.events, decider, { ...command, eventId: ctx.ids.eventId() }, (writes) =>
      statusIn(writes, command.sinkId),
    );

/** An admin pauses their space's sink: it waits, cursor kept, until an admin resumes it. */
export const pauseSink = statusChange(pauseSinkDecider);

/** An admin resumes their space's sink: delivery goes on from its cursor, retries from zero. */
export const resumeSink = statusChange(resumeSinkDecider);
