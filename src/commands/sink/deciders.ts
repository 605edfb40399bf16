import type { Asked, SinkTarget } from '../../domain/events.js';
import { isPushed, keepsSecret } from '../../domain/sink/targets.js';
import { accept, refuse } from '../../domain/decision.js';
import {
  decideChangeSink,
  decideCreateSink,
  decideDeleteSink,
  decidePauseSink,
  decideResumeSink,
  type SinkRefusal,
  type SinkState,
} from '../../domain/sink/decide.js';
import type { WithSinkWrites } from '../../delivery/sink-writes.js';
import { shownFailure } from '#outbound/transport.js';
import {
  ConflictError,
  InsufficientScopeError,
  InvalidRequestError,
  NotFoundError,
} from '../../errors/errors.js';
import type { LockedDecider, Placed, Refusals } from '../handle.js';

/** Who asks (an admin, or a stream's receiver), in which space, about which sink, and the id its event gets. */
export interface SinkChange extends Asked {
  readonly spaceId: string;
  readonly sinkId: string;
  /** A stream's receiver (its client id), which sees its own streams alone; absent: an admin. */
  readonly receiver?: string;
}

/** A sink's row fields that are sealed: a webhook's secret (null: none) and its path and query. */
export interface SealedParts {
  readonly sealedSecret?: string | null;
  readonly sealedPath?: string;
}

type Sink = SinkState | undefined;

/** An operator's sink is not found, exactly as a missing id (else its ids would be enumerable). */
export const refused = (): never => {
  throw new NotFoundError('no sink of that id in this space');
};

export const notFound: Refusals<SinkRefusal, unknown> = {
  not_found: () => new NotFoundError('no sink of that id in this space'),
  operator_sink: () => new NotFoundError('no sink of that id in this space'),
  stream_kind: () =>
    new InvalidRequestError(
      'an audit sink cannot become a signal stream, or a signal stream an audit sink: create a new sink',
      [{ field: 'target', message: 'keep its kind and format, or create a new sink' }],
    ),
  changed_meanwhile: () =>
    new ConflictError('the stream changed while this change was made: read it and try again'),
  receiver_managed: () =>
    new InvalidRequestError("a receiver's stream is pointed by its receiver (SSF 1.0 §8)", [
      { field: 'target', message: 'rename, pause, resume or delete it; its receiver moves it' },
    ]),
  admin_paused: () =>
    new InsufficientScopeError(
      "this stream was paused by the space's administrator: only they resume or delete it",
    ),
};

/** A sink's event goes to the stream its decision names (its space's log, the operator's: the system space). */
export const placedByDecision = (_command: unknown, facts: Placed): Placed => facts;

/** A new sink: its id, recorded target and sealed parts made by the caller. */
export interface CreateSink extends SinkChange {
  readonly name: string;
  readonly target: SinkTarget;
  readonly sealed: SealedParts;
  /** SINK_MAX_PER_SPACE. */
  readonly maxSinks: number;
}

/** Creates in one space one at a time, under its lock: two cannot both see room for one more. */
export const createSinkDecider: LockedDecider<
  CreateSink,
  { readonly count: number; readonly receiverStreams?: number },
  'sink_limit' | 'receiver_has_stream',
  Placed,
  WithSinkWrites
> = {
  load: async ({ sinks }, command) => {
    await sinks.lockSpace(command.spaceId);
    const count = await sinks.count(command.spaceId);
    if (command.receiver === undefined) return { count };
    return { count, receiverStreams: await sinks.count(command.spaceId, command.receiver) };
  },
  decide: (command, { count, receiverStreams }) =>
    decideCreateSink({
      ...command,
      sinks: { count, limit: command.maxSinks },
      ...(receiverStreams === undefined ? {} : { receiverStreams }),
    }),
  stream: placedByDecision,
  refusals: {
    sink_limit: (command) =>
      new ConflictError(
        `this space has its limit of ${command.maxSinks} audit sinks (SINK_MAX_PER_SPACE): delete one (DELETE /v1/sinks/{sink_id}) before creating another`,
      ),
    receiver_has_stream: () =>
      new ConflictError(
        'this receiver has a stream already (one per receiver): read it (GET) or delete it first',
      ),
  },
  inline: ({ sinks }, command) =>
    sinks.write({
      sinkId: command.sinkId,
      spaceId: command.spaceId,
      name: command.name,
      target: command.target,
      ...(command.receiver === undefined ? {} : { receiver: command.receiver }),
      ...command.sealed,
    }),
};

/** A rename, a new target, or a webhook's new secret. */
export interface ChangeSink extends SinkChange {
  readonly name?: string;
  readonly target?: SinkTarget;
  readonly rotateSecret?: boolean;
  /** A webhook's new secret, made when asked for or when the sink becomes a webhook. */
  readonly newSecret: () => string;
  /**
   * A receiver's stream: the `authorization_header` it gave (sealed as the secret), null for
   * none; its streams get no secret made here.
   */
  readonly givenSecret?: string | null;
  /** The sealed parts of the row for this sink, target and secret. */
  readonly seal: (sinkId: string, secret: string | undefined) => SealedParts;
}

/** What a change decided beyond where its event goes: the row's new name, target and secret. */
export interface ChangedSink extends Placed {
  readonly name: string;
  readonly target: SinkTarget;
  readonly secret?: string;
}

/** Changes a sink under its row's lock; the cursor stays. */
export const changeSinkDecider: LockedDecider<
  ChangeSink,
  Sink,
  SinkRefusal,
  ChangedSink,
  WithSinkWrites
> = {
  load: ({ sinks }, command) => sinks.lockedSink(command.sinkId),
  decide: (command, state) => {
    const target = command.target ?? state?.target;
    const name = command.name ?? state?.name;
    if (!state || !target || name === undefined) return refuse('not_found');
    // A secret sent to a receiver as a Bearer never becomes the one a poller reads with.
    const newHolder = !keepsSecret(state.target) || isPushed(target) !== isPushed(state.target);
    const secret =
      state.receiver !== undefined
        ? (command.givenSecret ?? undefined)
        : keepsSecret(target) && (command.rotateSecret === true || newHolder)
          ? command.newSecret()
          : undefined;
    const decision = decideChangeSink(
      { ...command, name, target, secretRotated: secret !== undefined },
      state,
    );
    if (!decision.ok) return decision;
    return accept(decision.events, { ...decision.facts, name, target, ...(secret && { secret }) });
  },
  stream: placedByDecision,
  refusals: notFound,
  inline: ({ sinks }, command, state, facts) =>
    sinks.write({
      sinkId: state!.sinkId,
      spaceId: state!.spaceId,
      name: facts.name,
      target: facts.target,
      ...command.seal(state!.sinkId, facts.secret),
      // A receiver's new delivery without a header drops the old: a credential given for one
      // URL never goes to another.
      ...(command.givenSecret === null ? { sealedSecret: null } : {}),
    }),
};

/** An admin's pause: it names the failures so far, from the sink's cursor. */
export const pauseSinkDecider: LockedDecider<
  SinkChange,
  { readonly sink: Sink; readonly attempts: number; readonly lastError: string | null },
  SinkRefusal,
  Placed,
  WithSinkWrites
> = {
  load: async ({ sinks }, command) => {
    const sink = await sinks.lockedSink(command.sinkId);
    const cursor = await sinks.cursor(command.sinkId);
    return {
      sink,
      attempts: cursor?.attempts ?? 0,
      lastError: shownFailure(cursor?.last_error ?? null),
    };
  },
  decide: (command, { sink, attempts, lastError }) =>
    decidePauseSink({ ...command, reason: pausedBy(command), attempts, lastError }, sink),
  stream: placedByDecision,
  refusals: notFound,
  inline: ({ sinks }, command) => sinks.paused(command.sinkId, { reason: pausedBy(command) }),
};

/** An admin's change, or a stream's receiver's. */
const pausedBy = (command: SinkChange) => (command.receiver === undefined ? 'admin' : 'receiver');

/** A decider of one change to a sink, read under its lock. */
type SinkChangeDecider = LockedDecider<SinkChange, Sink, SinkRefusal, Placed, WithSinkWrites>;

/** A change to one existing sink: read under its lock, its event where its decision says. */
const sinkChange = (
  decide: SinkChangeDecider['decide'],
  inline: SinkChangeDecider['inline'],
): SinkChangeDecider => ({
  load: ({ sinks }, command) => sinks.lockedSink(command.sinkId),
  decide,
  stream: placedByDecision,
  refusals: notFound,
  inline,
});

/** An admin's resume: delivery goes on from the cursor, retries from zero. */
export const resumeSinkDecider = sinkChange(
  (command, sink) => decideResumeSink({ ...command, reason: pausedBy(command) }, sink),
  ({ sinks }, command) => sinks.paused(command.sinkId, false),
);

/** A delete: the row stays, marked, its secret and sealed path dropped. */
export const deleteSinkDecider = sinkChange(
  (command, sink) => decideDeleteSink(command, sink),
  ({ sinks }, command) => sinks.deleted(command.sinkId),
);
