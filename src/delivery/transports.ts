import type { OutboundEvent } from '#outbound/outbound-event.js';
import { syslogTransport } from '#outbound/syslog.js';
import type { TargetRules } from '#outbound/target-rules.js';
import {
  DeliveryError,
  statusFailure,
  type DeliveryBatch,
  type Transport,
} from '#outbound/transport.js';
import { webhookTransport } from '#outbound/webhook.js';
import { webhookPoster } from '#outbound/webhook-post.js';
import { redactEvent } from '../audit-trail/redaction.js';
import { fullForm } from '../domain/stored-form.js';
import type { RecordedEvent } from '#event-log/types.js';
import type { SinkDefinition } from './sinks.js';
import type { SignalSigner } from '../crypto/signal-signing.js';
import { isSignalStream, signalsAsked } from '../domain/sink/targets.js';
import { receiverTargetRules } from '../domain/policy.js';
import { signalClaims, verificationClaims } from './signal-tokens.js';
import type { DeliveredSet, DelivererEvents } from './sink-events.js';

/** SETs were delivered but could not be recorded: the database's failure, not the sink's. */
export class UnrecordedDelivery extends Error {}

/** A batch of the log as the sink loop reads it: events as stored. */
export type SinkBatch = DeliveryBatch<RecordedEvent>;
/** A sink's transport as the sink loop uses it: it takes events as stored. */
export type SinkTransport = Transport<RecordedEvent>;

/** The name a sink's receivers see: CloudEvent types `com.token-authority.…`, syslog APP-NAME. */
const APP = 'token-authority';

/** The event as it leaves: full form, redacted as exports and the live feed are. */
export const leavingEvent = (stored: RecordedEvent): OutboundEvent => redactEvent(fullForm(stored));

/** What a sink's transport is made with: the deliverer's settings, and what signs SETs. */
export interface TransportOptions {
  readonly issuer: string;
  readonly timeoutMs: number;
  readonly rules: TargetRules;
  /** Absent: signal streams fail (`secret_unavailable`) and pause, named, until there is one. */
  readonly signals?: SignalSigner;
  /** Where a stream's acknowledged SETs are recorded (`signals-delivered`) before it moves on. */
  readonly events: Pick<DelivererEvents, 'delivered'>;
}

/** A sink's own transport, target rules at each connect, events via {@link leavingEvent}. */
export function transportFor(sink: SinkDefinition, options: TransportOptions): SinkTransport {
  if (isSignalStream(sink.target)) return signalTransport(sink, options);
  const outbound = outboundTransport(sink, options);
  return {
    send: (batch) => outbound.send({ ...batch, events: batch.events.map(leavingEvent) }),
    probe: () => outbound.probe(),
    close: () => outbound.close(),
  };
}

function outboundTransport(
  sink: SinkDefinition,
  options: { readonly issuer: string; readonly timeoutMs: number; readonly rules: TargetRules },
): Transport {
  const { target } = sink;
  // Only these: a caller's wider options (its database URL among them) never reach a sink.
  const { issuer, timeoutMs, rules } = options;
  if (target.kind === 'syslog') {
    return syslogTransport({ ...target, ca: sink.ca, issuer, app: APP, timeoutMs, rules });
  }
  const { secret, url } = sink;
  if (secret === undefined || url === undefined) {
    // Sealed under a key-encryption key this process does not hold: fails, pauses, is named.
    const missing = async () => {
      throw new DeliveryError(
        'secret_unavailable',
        'the webhook secret or sealed path cannot be opened with this key-encryption key',
      );
    };
    return { send: missing, probe: missing, close: () => undefined };
  }
  return webhookTransport({ url, secret, issuer, app: APP, timeoutMs, rules });
}

const unavailable = (what: string) =>
  new DeliveryError('secret_unavailable', `${what} cannot be opened or signed with here`);

/**
 * A Shared Signals stream (SSF 1.0): each event of the batch that gives a signal the stream asked
 * for leaves as one Security Event Token, POSTed alone per RFC 8935 (`application/secevent+jwt`,
 * acknowledged by a 2xx, 202 by the RFC) in log order; the rest are passed over. Only a 2xx moves
 * on: a SET refused (400) is retried and then pauses the stream, never skipped, so a receiver
 * misses none. The sink's secret is the `Authorization` a receiver checks (SSF's
 * `authorization_header`).
 */
function signalTransport(sink: SinkDefinition, options: TransportOptions): SinkTransport {
  const { secret, url, spaceId } = sink;
  const signer = options.signals;
  // A receiver's stream sends the `authorization_header` it gave, verbatim, or none (SSF 1.0
  // §6.1.1); an admin's, the Bearer of its secret.
  const authorization = sink.receiver === undefined ? secret && `Bearer ${secret}` : secret;
  const secretMissing =
    sink.receiver === undefined || sink.target.kind !== 'webhook'
      ? secret === undefined
      : sink.target.authorization_digest !== undefined && secret === undefined;
  if (secretMissing || url === undefined || spaceId === null || !signer) {
    const missing = async () => {
      throw unavailable('the stream secret, sealed path or space signing key');
    };
    return { send: missing, probe: missing, close: () => undefined };
  }
  const events = signalsAsked(sink.target);
  const stream = {
    streamId: sink.sinkId,
    spaceId,
    issuer: signer.issuer(spaceId),
    ...(events ? { events } : {}),
  };
  const rules = sink.receiver === undefined ? options.rules : receiverTargetRules(options.rules);
  const poster = webhookPoster({ url, rules, timeoutMs: options.timeoutMs });
  const post = async (claims: object) => {
    const jwt = await signer.sign(spaceId, claims).catch((error: unknown) => {
      throw Object.assign(unavailable("the space's signing key"), { cause: error });
    });
    const status = await poster.post(
      {
        'content-type': 'application/secevent+jwt',
        accept: 'application/json',
        ...(authorization === undefined ? {} : { authorization }),
        'user-agent': 'token-authority-ssf',
      },
      jwt,
    );
    if (status < 200 || status > 299) {
      throw new DeliveryError(statusFailure(status), `SET receiver answered HTTP ${status}`);
    }
  };
  // A stream stopped (deleted, changed) sends no further SET of the batch it was in; a pause
  // is seen at the next batch.
  let closed = false;
  // SETs of a batch that failed further on, taken and recorded already: not sent again on retry.
  let takenBefore = new Set<string>();
  return {
    // What the receiver took is recorded before the cursor moves, even when a later SET failed.
    async send(batch) {
      const taken: DeliveredSet[] = [];
      let failure: unknown;
      try {
        for (const event of batch.events) {
          for (const claims of signalClaims(stream, event)) {
            if (closed) throw new DeliveryError('connection_lost', 'the stream was stopped');
            if (takenBefore.has(claims.jti as string)) continue;
            await post(claims);
            taken.push({ jti: claims.jti as string, event_id: event.eventId });
          }
        }
      } catch (error) {
        failure = error;
      }
      if (taken.length > 0) {
        await options.events.delivered(sink.sinkId, spaceId, taken).catch((error: unknown) => {
          throw new UnrecordedDelivery('delivered SETs could not be recorded', { cause: error });
        });
      }
      if (failure === undefined) takenBefore = new Set();
      else for (const { jti } of taken) takenBefore.add(jti);
      if (failure !== undefined) throw failure;
    },
    probe: () => post(verificationClaims(stream, new Date())),
    close: () => {
      closed = true;
      poster.close();
    },
  };
}
