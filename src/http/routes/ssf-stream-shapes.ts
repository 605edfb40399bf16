import { z } from 'zod';
import { webhookTargetRequestSchema } from '../../domain/event-data/sink.js';
import type { SinkTarget } from '../../domain/events.js';
import { signalsAsked } from '../../domain/sink/targets.js';
import {
  DELIVERY_METHODS,
  MIN_VERIFICATION_INTERVAL_SECONDS,
  SIGNAL_URIS,
  type SignalUri,
} from '../../domain/security-signals.js';
import type { SinkDefinition } from '../../delivery/sinks.js';
import { InvalidRequestError } from '../../errors/errors.js';
import { displayText } from '../validate.js';

/** A space's sink id (`snk_` and 96 random bits): anything else is refused before any query. */
export const streamId = z
  .string()
  .regex(/^snk_[A-Za-z0-9_-]{16}$/, 'expected a stream id: snk_ and 16 characters');

// Sent verbatim as a header: printable ASCII alone, so no line break can start another.
const headerValue = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[\x21-\x7e][\x20-\x7e]*$/, 'printable ASCII on one line');

const transmitterField = z.unknown().optional();

/** SSF 1.0 §8.1.1: a stream configuration as a receiver sends it; other members are ignored. */
export const streamRequest = z.object({
  stream_id: streamId.optional(),
  iss: transmitterField,
  aud: transmitterField,
  events_supported: transmitterField,
  events_delivered: transmitterField,
  min_verification_interval: transmitterField,
  delivery: z
    .object({
      method: z.string().max(200),
      endpoint_url: z.string().max(2000).optional(),
      authorization_header: headerValue.optional(),
    })
    .optional(),
  events_requested: z.array(z.string().max(2000)).max(100).optional(),
  description: displayText(200).optional(),
});
export type StreamRequest = z.infer<typeof streamRequest>;

/** SSF 1.0 §8.1.1: a stream's configuration as the transmitter answers it. */
export const streamConfiguration = z.object({
  stream_id: z.string(),
  iss: z.string(),
  aud: z.string(),
  delivery: z.object({ method: z.string(), endpoint_url: z.string() }),
  events_supported: z.array(z.string()),
  events_requested: z.array(z.string()).optional(),
  events_delivered: z.array(z.string()),
  description: z.string().optional(),
  min_verification_interval: z.number().int(),
});
export type StreamConfiguration = z.infer<typeof streamConfiguration>;

/** A stream's name when its receiver gave no description. */
export const unnamed = (clientId: string) => `ssf stream of ${clientId}`.slice(0, 200);

/** Where the answer's URLs point: the space's issuer and the stream's poll endpoint. */
export interface StreamPlaces {
  readonly issuer: string;
  readonly pollUrl: (streamId: string) => string;
}

/** A stream's configuration (SSF 1.0 §8.1.1) from its row; its header never shown. */
export function configurationOf(
  sink: SinkDefinition,
  receiver: string,
  places: StreamPlaces,
): StreamConfiguration {
  const requested = signalsAsked(sink.target) ?? SIGNAL_URIS;
  return {
    stream_id: sink.sinkId,
    iss: places.issuer,
    aud: sink.sinkId,
    delivery:
      sink.target.kind === 'poll'
        ? { method: DELIVERY_METHODS.poll, endpoint_url: places.pollUrl(sink.sinkId) }
        : { method: DELIVERY_METHODS.push, endpoint_url: sink.url ?? '' },
    events_supported: [...SIGNAL_URIS],
    // SSF 1.0 §7.2.3: a member with no elements is left out.
    ...(requested.length > 0 ? { events_requested: [...requested] } : {}),
    events_delivered: [...requested],
    ...(sink.name === unnamed(receiver) ? {} : { description: sink.name }),
    min_verification_interval: MIN_VERIFICATION_INTERVAL_SECONDS,
  };
}

const refusal = (field: string, message: string) =>
  new InvalidRequestError(`${field}: ${message}`, [{ field, message }]);

/** The same value, arrays in any order (SSF 1.0 §8.1.1.3: they "MUST match"). */
const same = (a: unknown, b: unknown) => {
  const norm = (v: unknown) =>
    Array.isArray(v) ? JSON.stringify([...v].sort()) : JSON.stringify(v);
  return norm(a) === norm(b);
};

/** SSF 1.0 §8.1.1.3: transmitter-supplied members, when sent, must be what they are. */
export function requireTransmitterFields(body: StreamRequest, current: StreamConfiguration): void {
  for (const field of [
    'iss',
    'aud',
    'events_supported',
    'events_delivered',
    'min_verification_interval',
  ] as const) {
    if (body[field] !== undefined && !same(body[field], current[field])) {
      throw refusal(field, 'a transmitter-supplied value, which the receiver cannot change');
    }
  }
}

/** The signals asked for that this service sends; any other URI ignored (SSF 1.0 §8.1.1). */
const knownSignals = (asked: readonly string[]): SignalUri[] => [
  ...new Set(asked.filter((uri): uri is SignalUri => (SIGNAL_URIS as string[]).includes(uri))),
];

/** A stream's target asking for other signals, its delivery as it was. */
export const withSignals = (target: SinkTarget, asked: readonly string[]): SinkTarget =>
  target.kind === 'syslog' ? target : { ...target, events: knownSignals(asked) };

/** A receiver's delivery and events as a sink target, and the header to keep (null: none). */
export function requestedTarget(
  body: Pick<StreamRequest, 'delivery' | 'events_requested'>,
  places: { readonly pollUrl?: string; readonly digest: (text: string) => Buffer },
): { readonly target: SinkTarget; readonly header: string | null } {
  const events = knownSignals(body.events_requested ?? []);
  const delivery = body.delivery ?? { method: DELIVERY_METHODS.poll };
  if (delivery.method === DELIVERY_METHODS.poll) {
    // Ours to say (SSF 1.0 §6.1.2): a receiver may send it back unchanged, not another.
    if (delivery.endpoint_url !== undefined && delivery.endpoint_url !== places.pollUrl) {
      throw refusal('delivery.endpoint_url', "a polled stream's URL is the transmitter's");
    }
    if (delivery.authorization_header !== undefined) {
      throw refusal('delivery.authorization_header', 'a polled stream is read with your token');
    }
    return { target: { kind: 'poll', events }, header: null };
  }
  if (delivery.method !== DELIVERY_METHODS.push) {
    throw refusal('delivery.method', `${DELIVERY_METHODS.push} or ${DELIVERY_METHODS.poll}`);
  }
  const url = webhookTargetRequestSchema.shape.url.safeParse(delivery.endpoint_url);
  if (!url.success) {
    throw refusal('delivery.endpoint_url', url.error.issues[0]?.message ?? 'an https:// URL');
  }
  const header = delivery.authorization_header ?? null;
  return {
    target: {
      kind: 'webhook',
      format: 'secevent',
      url: url.data,
      events,
      ...(header === null
        ? {}
        : {
            // Its own domain: never equal to a client secret's digest under the same key.
            authorization_digest: `hmac-sha256:${places.digest(`ssf-authorization-header\0${header}`).toString('hex')}`,
          }),
    },
    header,
  };
}

/** SSF 1.0 §8.1.2.1: a stream's status as answered. */
export const streamStatus = z.object({
  stream_id: z.string(),
  status: z.enum(['enabled', 'paused']),
  reason: z.string().optional(),
});

/** Why a stream is paused, told its receiver when it was not its own doing (never the failure). */
const PAUSED_BECAUSE: Readonly<Record<string, string>> = {
  admin: "paused by the space's administrator",
  failing: 'paused: deliveries to the endpoint kept failing; enable it to try again',
};

/** SSF 1.0 §8.1.2.1: enabled or paused, and why when it was not its receiver's doing. */
export function statusOf(sink: SinkDefinition): z.infer<typeof streamStatus> {
  if (!sink.paused) return { stream_id: sink.sinkId, status: 'enabled' };
  const reason = Object.hasOwn(PAUSED_BECAUSE, sink.pauseReason ?? '')
    ? PAUSED_BECAUSE[sink.pauseReason!]
    : undefined;
  return { stream_id: sink.sinkId, status: 'paused', ...(reason ? { reason } : {}) };
}

/** SSF 1.0 §8.1.2.2: a status change a receiver asks for. */
export const statusRequest = z.object({
  stream_id: streamId,
  status: z.enum(['enabled', 'paused', 'disabled']),
  reason: displayText(200).optional(),
});

/** SSF 1.0 §8.1.4.2: a verification a receiver asks for; `state` comes back in the SET. */
export const verifyRequest = z.object({
  stream_id: streamId,
  state: z.string().max(256).optional(),
});
