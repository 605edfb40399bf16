import { createHash, randomUUID } from 'node:crypto';
import type { RecordedEvent } from '#event-log/types.js';
import { EVENT_CATALOG, parseEventData } from '../domain/events.js';
import { ownedBySpace } from '../domain/policy.js';
import {
  SIGNAL_TYPES,
  VERIFICATION_URI,
  type SecuritySignal,
  type SignalSubject,
  type SignalUri,
} from '../domain/security-signals.js';
import { fullForm } from '../domain/stored-form.js';
import type { EventDeclaration } from '../domain/event-data/declaration.js';

/** A signal stream as its Security Event Tokens name it (SSF 1.0 §8.1.1). */
export interface SignalStream {
  readonly streamId: string;
  readonly spaceId: string;
  /** The space's own issuer: `iss` of every SET, the transmitter's SSF metadata issuer. */
  readonly issuer: string;
  /** What the receiver asked for; absent: every signal this service sends. */
  readonly events?: readonly SignalUri[];
}

/** The stream's `aud` (transmitter-supplied, SSF §8.1.1): its id, which no tenant picks. */
export const streamAudience = (stream: Pick<SignalStream, 'streamId'>) => stream.streamId;

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** RFC 9493 subjects: a token by its jti, a client or stream by its id, `opaque` to any other party. */
const subjectId = (subject: SignalSubject) => ({
  format: 'opaque',
  id: 'token' in subject ? subject.token : 'client' in subject ? subject.client : subject.stream,
});

/**
 * The claims of each SET (SSF 1.0 §4, RFC 8417) a recorded event gives a stream, none when it
 * gives none the stream asked for (an event may give two: a credential revoked as compromised).
 * The same event makes the same claims for the same stream on every try (`jti` from both, `iat`
 * the event's time): a receiver drops a repeat by its `jti`. An event of another space gives
 * none, whatever reads it.
 */
export function signalClaims(
  stream: SignalStream,
  stored: RecordedEvent,
): Array<Record<string, unknown>> {
  if (!ownedBySpace(stored, stream.spaceId)) return [];
  const declaration = (EVENT_CATALOG as Record<string, EventDeclaration | undefined>)[stored.type];
  if (!declaration?.signal) return [];
  const event = fullForm(stored);
  const given = declaration.signal(parseEventData(stored.type, event.data));
  const signals = given === undefined ? [] : Array.isArray(given) ? given : [given];
  const requestId = event.metadata.request_id;
  return signals.flatMap((signal: SecuritySignal, index) => {
    let uri: string;
    if (signal.type === 'verification') {
      if (signal.subject.stream !== stream.streamId) return [];
      uri = VERIFICATION_URI;
    } else {
      uri = SIGNAL_TYPES[signal.type];
      if (stream.events && !stream.events.includes(uri as SignalUri)) return [];
    }
    // The first signal's jti is as it always was; a second one's names its place.
    const seed = `${stream.streamId}\n${stored.eventId}${index === 0 ? '' : `\n${index}`}`;
    return [
      {
        iss: stream.issuer,
        aud: streamAudience(stream),
        jti: createHash('sha256').update(seed).digest('base64url').slice(0, 22),
        iat: seconds(stored.recordedAt),
        // One request's signals share it (a credential revoked and its tokens, say).
        txn: typeof requestId === 'string' ? requestId : stored.eventId,
        sub_id: subjectId(signal.subject),
        events: { [uri]: { event_timestamp: seconds(stored.recordedAt), ...signal.fields } },
      },
    ];
  });
}

/** SSF 1.0 §8.1.4's verification event, the transmitter's own (no `state`): a paused stream's probe. */
export function verificationClaims(stream: SignalStream, now: Date): Record<string, unknown> {
  return {
    iss: stream.issuer,
    aud: streamAudience(stream),
    jti: randomUUID(),
    iat: seconds(now),
    sub_id: { format: 'opaque', id: stream.streamId },
    events: { [VERIFICATION_URI]: {} },
  };
}
