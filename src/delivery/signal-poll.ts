import type { Kysely } from 'kysely';
import type { LogPosition } from '#event-log/types.js';
import type { Database } from '../db/schema.js';
import type { KeyEncryptionKey } from '../crypto/key-encryption.js';
import { sameText } from '../crypto/secrets.js';
import type { SignalSigner } from '../crypto/signal-signing.js';
import { mayPollStream, streamOfReceiver } from '../domain/policy.js';
import { signalsAsked } from '../domain/sink/targets.js';
import { InvalidTokenError } from '../errors/errors.js';
import { nextBatch } from './batch-reader.js';
import { advanceCursor, readCursor } from './cursor.js';
import { signalClaims } from './signal-tokens.js';
import { loadSink } from './sinks.js';
import type { DeliveredSet } from './sink-events.js';

/** A poll's bounds: SETs per answer, and the log's events it looks through. */
const MAX_EVENTS = 100;
const READ_LIMIT = 1000;
const SCAN_LIMIT = 5000;
// An event gives at most two SETs: every one a read holds, kept.
const MAX_ACKED_AHEAD = 2 * READ_LIMIT;

/** What a poll uses: the sinks' rows and cursors, the log, the KEK and what signs for a space. */
export interface SignalPollPorts {
  readonly db: Kysely<Database>;
  readonly kek: KeyEncryptionKey;
  readonly signer: SignalSigner;
  /** Records the SETs a poll acknowledged (`signals-delivered`), before the cursor moves. */
  readonly delivered: (
    sink: { readonly sinkId: string; readonly spaceId: string },
    sets: readonly DeliveredSet[],
  ) => Promise<void>;
}

/** An RFC 8936 §2.4 poll request, as validated at the edge. */
export interface SignalPoll {
  readonly streamId: string;
  /** The `Authorization` an admin's stream is read with, or the receiver a token named. */
  readonly who:
    | { readonly authorization: string | undefined }
    | { readonly receiver: { readonly spaceId: string; readonly clientId: string } };
  readonly maxEvents: number;
  /** The jtis the receiver took and acknowledges (`ack`). */
  readonly acknowledged: readonly string[];
  /** The jtis it reports an error for (`setErrs`), by error code: not sent again, recorded so. */
  readonly refused: ReadonlyMap<string, string>;
}

/**
 * RFC 8936: a polled stream's receiver acknowledges what it took and gets the next SETs, in log
 * order, at least once. Its cursor moves past an event only once every SET before it was
 * acknowledged, compare-and-set, so two polls at once never skip one; an unacknowledged SET comes
 * again (the same bytes: the same claims, a deterministic signature). Not the stream's secret,
 * or no such polled stream: 401, the same answer for both.
 */
export async function pollSignals(
  ports: SignalPollPorts,
  poll: SignalPoll,
): Promise<{ readonly sets: Record<string, string>; readonly moreAvailable: boolean }> {
  const sink = await loadSink(ports.db, ports.kek, poll.streamId);
  // A receiver's stream is read with its receiver's token alone (SSF 1.0 §7.1.1), an admin's
  // with its secret alone.
  const matches =
    sink !== undefined &&
    ('receiver' in poll.who
      ? streamOfReceiver(sink, poll.who.receiver)
      : sink.receiver === undefined &&
        sink.secret !== undefined &&
        sameText(poll.who.authorization ?? '', `Bearer ${sink.secret}`));
  const stream = sink && { polled: sink.target.kind === 'poll' };
  if (!sink || sink.spaceId === null || !mayPollStream(stream, matches)) {
    throw new InvalidTokenError('not a polled signal stream, or not its secret');
  }
  // SSF: a paused stream sends nothing and holds its events.
  if (sink.paused) return { sets: {}, moreAvailable: false };
  const events = signalsAsked(sink.target);
  const signalStream = {
    streamId: sink.sinkId,
    spaceId: sink.spaceId,
    issuer: ports.signer.issuer(sink.spaceId),
    ...(events ? { events } : {}),
  };
  const { position: from, ackedAhead: kept = [] } = await readCursor(ports.db, sink.sinkId);
  const batch = await nextBatch(ports.db, {
    after: from,
    spaceId: sink.spaceId,
    limit: READ_LIMIT,
    scanLimit: SCAN_LIMIT,
  });
  if (!batch) return { sets: {}, moreAvailable: false };
  const acknowledged = new Set([...kept, ...poll.acknowledged, ...poll.refused.keys()]);
  const taking = new Set(poll.acknowledged);
  const refusing = poll.refused;
  // Acknowledged by this poll, not before: what is recorded as delivered now.
  const before = new Set(kept);
  const taken: DeliveredSet[] = [];
  // The cursor may pass each event until the first SET not acknowledged.
  let through: LogPosition | undefined;
  let passed = 0;
  const waiting: Array<Record<string, unknown>> = [];
  // The acknowledged SETs the cursor does not pass: kept, so they are not sent again.
  const ackedAhead: string[] = [];
  for (const event of batch.events) {
    const sets = signalClaims(signalStream, event);
    // The cursor passes an event once each of its SETs is acknowledged.
    const passes = waiting.length === 0 && sets.every(({ jti }) => acknowledged.has(jti as string));
    for (const claims of sets) {
      const jti = claims.jti as string;
      if (!acknowledged.has(jti)) waiting.push(claims);
      else {
        if (!before.has(jti) && (taking.has(jti) || refusing.has(jti))) {
          const error = refusing.has(jti) && !taking.has(jti) ? poll.refused.get(jti) : undefined;
          taken.push({ jti, event_id: event.eventId, ...(error === undefined ? {} : { error }) });
        }
        if (!passes) ackedAhead.push(jti);
      }
    }
    if (passes) {
      through = event;
      passed += 1;
    }
  }
  if (taken.length > 0)
    await ports.delivered({ sinkId: sink.sinkId, spaceId: sink.spaceId }, taken);
  if (waiting.length === 0) through = batch.through;
  if (through) {
    const position = {
      transactionId: through.transactionId,
      globalPosition: through.globalPosition,
    };
    await advanceCursor(ports.db, sink.sinkId, from, position, batch.events.slice(0, passed));
  }
  const keep = ackedAhead.slice(0, MAX_ACKED_AHEAD);
  if (keep.join('\n') !== kept.join('\n')) {
    await ports.db
      .updateTable('audit_sink_cursors')
      .set({ acked_ahead: keep })
      .where('sink_id', '=', sink.sinkId)
      .execute();
  }
  const sent = waiting.slice(0, Math.min(poll.maxEvents, MAX_EVENTS));
  const sets: Record<string, string> = {};
  for (const claims of sent) {
    sets[claims.jti as string] = await ports.signer.sign(sink.spaceId, claims);
  }
  return { sets, moreAvailable: waiting.length > sent.length || !batch.atEnd };
}
