import { accept, refuse, type Decision } from '../decision.js';
import { isSignalStream, keepsSecret } from './targets.js';
import { ownedBySpace, roomForOne, type SpaceCount } from '../policy.js';
import {
  commandEvent,
  streams,
  SYSTEM_SPACE,
  type DomainEvent,
  type Asked,
  type Placed,
  type SinkTarget,
} from '../events.js';

/** A sink as its row holds it: what the deciders below look at. */
export interface SinkState {
  readonly sinkId: string;
  /** null: an operator sink (AUDIT_SINKS), which no space's admin may change. */
  readonly spaceId: string | null;
  readonly name: string;
  readonly target: SinkTarget;
  readonly paused: boolean;
  /** Deleted by an admin: its id stays taken, and answers as no sink does. */
  readonly deleted?: boolean;
}

/** Where a sink's event goes: its space's log (the operator's: the system space). */
const placed = (sinkId: string, spaceId: string | null, eventId: string): Placed => ({
  spaceId: spaceId ?? SYSTEM_SPACE,
  stream: streams.sinkChange(sinkId, eventId),
});

/** Create a sink; refused past SINK_MAX_PER_SPACE (each costs the deliverer a loop and log reads). */
export function decideCreateSink(
  command: Asked & {
    readonly sinkId: string;
    readonly spaceId: string;
    readonly name: string;
    readonly target: SinkTarget;
    /** The space's sinks not deleted, and how many it may have (absent: not checked). */
    readonly sinks?: SpaceCount;
  },
): Decision<DomainEvent<'sink-created'>, 'sink_limit', Placed> {
  if (!roomForOne(command.sinks)) return refuse('sink_limit');
  const event = commandEvent(command, 'sink-created', {
    sink_id: command.sinkId,
    name: command.name,
    target: command.target,
  });
  return accept([event], placed(command.sinkId, command.spaceId, command.eventId));
}

/** Why a change to a sink is refused: none in the space, or the operator's. */
export type SinkRefusal = 'not_found' | 'operator_sink' | 'stream_kind';

const owned = (state: SinkState | undefined, spaceId: string): SinkRefusal | undefined => {
  if (!state || state.deleted === true) return 'not_found';
  if (state.spaceId === null) return 'operator_sink';
  return ownedBySpace(state, spaceId) ? undefined : 'not_found';
};

/** Rename, repoint or re-secret a sink; nothing when nothing changes. */
export function decideChangeSink(
  command: Asked & {
    readonly spaceId: string;
    readonly name: string;
    readonly target: SinkTarget;
    readonly secretRotated?: boolean;
  },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-changed'>, SinkRefusal, Placed> {
  const refusal = owned(state, command.spaceId);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  // An audit sink never becomes a signal stream or back: its receiver, secret and cursor were
  // given for the one, and a silent switch would hand one party the other's feed.
  if (isSignalStream(state.target) !== isSignalStream(command.target)) return refuse('stream_kind');
  const where = placed(state.sinkId, state.spaceId, command.eventId);
  const rotated = command.secretRotated === true && keepsSecret(command.target);
  if (
    !rotated &&
    state.name === command.name &&
    JSON.stringify(state.target) === JSON.stringify(command.target)
  ) {
    return accept([], where);
  }
  const event = commandEvent(command, 'sink-changed', {
    sink_id: state.sinkId,
    name: command.name,
    target: command.target,
    ...(rotated ? { secret_rotated: true } : {}),
  });
  return accept([event], where);
}

/** Pause delivery: an admin's, or the deliverer's (`spaceId` undefined) after its retry bound. */
export function decidePauseSink(
  command: Asked & {
    readonly spaceId?: string;
    readonly reason: 'failing' | 'admin';
    readonly attempts: number;
    readonly lastError: string | null;
  },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-paused'>, SinkRefusal, Placed> {
  const refusal = command.spaceId === undefined ? undefined : owned(state, command.spaceId);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const where = placed(state.sinkId, state.spaceId, command.eventId);
  // A deleted sink is not paused or resumed by the deliverer's last turn: nothing to record.
  if (state.paused || state.deleted) return accept([], where);
  const event = commandEvent(command, 'sink-paused', {
    sink_id: state.sinkId,
    reason: command.reason,
    attempts: command.attempts,
    last_error: command.lastError,
  });
  return accept([event], where);
}

/** Resume from the cursor: an admin asks, or the deliverer found the sink answering. */
export function decideResumeSink(
  command: Asked & { readonly spaceId?: string; readonly reason: 'admin' | 'answering' },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-resumed'>, SinkRefusal, Placed> {
  const refusal = command.spaceId === undefined ? undefined : owned(state, command.spaceId);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const where = placed(state.sinkId, state.spaceId, command.eventId);
  if (!state.paused || state.deleted) return accept([], where);
  const event = commandEvent(command, 'sink-resumed', {
    sink_id: state.sinkId,
    reason: command.reason,
  });
  return accept([event], where);
}

/** Delete a sink (idempotent); an operator's or another space's is not found. */
export function decideDeleteSink(
  command: Asked & { readonly spaceId: string },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-deleted'>, SinkRefusal, Placed> {
  if (state?.deleted === true && ownedBySpace(state, command.spaceId)) {
    return accept([], placed(state.sinkId, state.spaceId, command.eventId));
  }
  const refusal = owned(state, command.spaceId);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const event = commandEvent(command, 'sink-deleted', { sink_id: state.sinkId, name: state.name });
  return accept([event], placed(state.sinkId, state.spaceId, command.eventId));
}
