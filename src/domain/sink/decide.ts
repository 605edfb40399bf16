import { accept, refuse, type Decision } from '../decision.js';
import { isSignalStream, keepsSecret } from './targets.js';
import {
  adminPauseTakesOver,
  ownedBySpace,
  receiverMayResume,
  roomForOne,
  streamOfReceiver,
  STREAMS_PER_RECEIVER,
  verificationWait,
  type SpaceCount,
} from '../policy.js';
import {
  commandEvent,
  streams,
  SYSTEM_SPACE,
  type DomainEvent,
  type Asked,
  type Placed,
  type SinkTarget,
  type EventData,
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
  /** A stream its receiver made (SSF 1.0 §8): that client, which alone manages it with admins. */
  readonly receiver?: string;
  /** Why it is paused: `admin`, `failing` or `receiver`. */
  readonly pauseReason?: string | null;
  /** When its receiver last asked for a verification, ms. */
  readonly verificationRequestedAt?: number;
}

/** Who changes a sink: a space's admin, or a stream's receiver (its client id). */
export interface SinkAsker {
  readonly spaceId: string;
  readonly receiver?: string;
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
    /** A receiver making its stream, and how many it has. */
    readonly receiver?: string;
    readonly receiverStreams?: number;
  },
): Decision<DomainEvent<'sink-created'>, 'sink_limit' | 'receiver_has_stream', Placed> {
  if (!roomForOne(command.sinks)) return refuse('sink_limit');
  if ((command.receiverStreams ?? 0) >= STREAMS_PER_RECEIVER) return refuse('receiver_has_stream');
  const event = commandEvent(command, 'sink-created', {
    sink_id: command.sinkId,
    name: command.name,
    target: command.target,
    ...(command.receiver === undefined ? {} : { receiver: command.receiver }),
  });
  return accept([event], placed(command.sinkId, command.spaceId, command.eventId));
}

/**
 * Why a change to a sink is refused: none in the space (or not the receiver's), the operator's,
 * a switch of kind, or a receiver resuming what an admin paused.
 */
export type SinkRefusal =
  | 'not_found'
  | 'operator_sink'
  | 'stream_kind'
  | 'admin_paused'
  | 'receiver_managed'
  | 'changed_meanwhile';

/** Why `who` may not change the sink; the deliverer (no space) may change any that exists. */
const owned = (state: SinkState | undefined, who: Partial<SinkAsker>): SinkRefusal | undefined => {
  if (!state) return 'not_found';
  if (who.spaceId === undefined) return undefined;
  if (state.deleted === true) return 'not_found';
  if (state.spaceId === null) return 'operator_sink';
  if (who.receiver !== undefined) {
    return streamOfReceiver(state, { spaceId: who.spaceId, clientId: who.receiver })
      ? undefined
      : 'not_found';
  }
  return ownedBySpace(state, who.spaceId) ? undefined : 'not_found';
};

/** Rename, repoint or re-secret a sink; nothing when nothing changes. */
export function decideChangeSink(
  command: Asked &
    SinkAsker & {
      readonly name: string;
      readonly target: SinkTarget;
      readonly secretRotated?: boolean;
      /** The target the change was built from: another under the lock is a change in between. */
      readonly expectedTarget?: SinkTarget;
    },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-changed'>, SinkRefusal, Placed> {
  const refusal = owned(state, command);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const expected = command.expectedTarget;
  if (expected && JSON.stringify(expected) !== JSON.stringify(state.target)) {
    return refuse('changed_meanwhile');
  }
  // An audit sink never becomes a signal stream or back: its receiver, secret and cursor were
  // given for the one, and a silent switch would hand one party the other's feed.
  if (isSignalStream(state.target) !== isSignalStream(command.target)) return refuse('stream_kind');
  // Where a receiver's stream goes, and the credential sent there, are its receiver's to say.
  const retargeted = JSON.stringify(state.target) !== JSON.stringify(command.target);
  if (state.receiver !== undefined && command.receiver === undefined && retargeted) {
    return refuse('receiver_managed');
  }
  const where = placed(state.sinkId, state.spaceId, command.eventId);
  const rotated = command.secretRotated === true && keepsSecret(command.target);
  if (!rotated && state.name === command.name && !retargeted) {
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
  command: Asked &
    Partial<SinkAsker> & {
      readonly reason: 'failing' | 'admin' | 'receiver';
      readonly note?: string;
      readonly attempts: number;
      readonly lastError: string | null;
    },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-paused'>, SinkRefusal, Placed> {
  const refusal = owned(state, command);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const where = placed(state.sinkId, state.spaceId, command.eventId);
  // A deleted sink is not paused or resumed by the deliverer's last turn: nothing to record. An
  // admin's pause over anyone else's is recorded, so only an admin lifts it.
  const takesOver = adminPauseTakesOver(command.reason, state.pauseReason);
  if (state.deleted || (state.paused && !takesOver)) return accept([], where);
  const event = commandEvent(command, 'sink-paused', {
    sink_id: state.sinkId,
    reason: command.reason,
    ...(command.note === undefined ? {} : { note: command.note }),
    attempts: command.attempts,
    last_error: command.lastError,
  });
  return accept([event], where);
}

/** Resume from the cursor: an admin asks, or the deliverer found the sink answering. */
export function decideResumeSink(
  command: Asked & Partial<SinkAsker> & { readonly reason: 'admin' | 'answering' | 'receiver' },
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-resumed'>, SinkRefusal, Placed> {
  const refusal = owned(state, command);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const where = placed(state.sinkId, state.spaceId, command.eventId);
  if (!state.paused || state.deleted) return accept([], where);
  if (command.reason === 'receiver' && !receiverMayResume(state.pauseReason)) {
    return refuse('admin_paused');
  }
  const event = commandEvent(command, 'sink-resumed', {
    sink_id: state.sinkId,
    reason: command.reason,
  });
  return accept([event], where);
}

/** Delete a sink (idempotent); an operator's or another space's is not found. */
export function decideDeleteSink(
  command: Asked & SinkAsker,
  state: SinkState | undefined,
): Decision<DomainEvent<'sink-deleted'>, SinkRefusal, Placed> {
  // An admin's DELETE again answers the same; a receiver's is 404 (SSF 1.0 §8.1.1.5).
  if (
    state?.deleted === true &&
    command.receiver === undefined &&
    ownedBySpace(state, command.spaceId)
  ) {
    return accept([], placed(state.sinkId, state.spaceId, command.eventId));
  }
  const refusal = owned(state, command);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  // Deleted and made again, an admin's pause would be lifted by the receiver it holds.
  if (command.receiver !== undefined && state.paused && !receiverMayResume(state.pauseReason)) {
    return refuse('admin_paused');
  }
  const event = commandEvent(command, 'sink-deleted', { sink_id: state.sinkId, name: state.name });
  return accept([event], placed(state.sinkId, state.spaceId, command.eventId));
}

/**
 * A receiver asks for a verification SET on its stream (SSF 1.0 §8.1.4.2), at most one per
 * MIN_VERIFICATION_INTERVAL_SECONDS: sooner is `too_soon`, with the seconds left.
 */
export function decideRequestVerification(
  command: Asked & SinkAsker & { readonly now: number; readonly state?: string },
  state: SinkState | undefined,
): Decision<DomainEvent<'stream-verification-requested'>, SinkRefusal | 'too_soon', Placed> {
  const refusal = owned(state, command);
  if (refusal || !state) return refuse(refusal ?? 'not_found');
  const waitSeconds = verificationWait(state.verificationRequestedAt, command.now);
  // The detail: the seconds left, for Retry-After.
  if (waitSeconds > 0) return refuse('too_soon', [], String(waitSeconds));
  const event = commandEvent(command, 'stream-verification-requested', {
    sink_id: state.sinkId,
    ...(command.state === undefined ? {} : { state: command.state }),
  });
  return accept([event], placed(state.sinkId, state.spaceId, command.eventId));
}

/** SETs a stream's receiver acknowledged: always recorded (the proof it was told, and when). */
export function decideRecordSignalsDelivered(
  command: Asked & { readonly delivered: EventData<'signals-delivered'> },
): Decision<DomainEvent<'signals-delivered'>> {
  return accept([commandEvent(command, 'signals-delivered', command.delivered)]);
}
