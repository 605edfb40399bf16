import { z } from 'zod';
import { SIGNAL_URIS } from '../security-signals.js';
import { declareEvent } from './declaration.js';

/** An http(s) URL; which hosts a deployment accepts is judged where it is used. */
export const httpUrl = (message: string) =>
  z
    .url()
    .max(2000)
    // URL.canParse first: z.url() lets through strings `new URL` throws on (`[v1.x]`), a 500.
    .refine((url) => URL.canParse(url) && ['https:', 'http:'].includes(new URL(url).protocol), {
      message,
    });

/**
 * Where a sink delivers the audit trail; packages/outbound/src/target-rules.ts judges its host
 * (https only in production, never link-local or the service's own ports).
 */
const webhookUrl = httpUrl('a webhook sink is an https:// URL');

/**
 * A webhook target as recorded (events, the sink's row): `url` the scheme, host and port alone;
 * the path and query, where a receiver's token may be, are sealed in the row and recorded as
 * `path_digest` (HMAC-SHA-256 under SECRET_HASH_KEY), telling a change without telling what.
 * Older events carry the whole URL and no digest, and are read as they were.
 */
export const webhookTargetSchema = z.object({
  kind: z.literal('webhook'),
  url: webhookUrl,
  path_digest: z
    .string()
    .regex(/^hmac-sha256:[0-9a-f]{64}$/)
    .optional(),
  /**
   * `secevent`: a Shared Signals stream (SSF 1.0), each signal of the space a Security Event
   * Token pushed per RFC 8935, signed by the space's own ring; absent: the audit trail as
   * CloudEvents.
   */
  format: z.literal('secevent').optional(),
  /**
   * A stream's signals (SSF `events_requested`); absent: every one this service sends; empty (a
   * receiver asked only for what this service does not send): none but its own verifications.
   */
  events: z.array(z.enum(SIGNAL_URIS)).max(SIGNAL_URIS.length).optional(),
  /**
   * A receiver-made stream's `authorization_header` (SSF 1.0 §6.1.1), sent verbatim on every push
   * in place of the Bearer secret: sealed in the row as a secret is, recorded as this digest.
   */
  authorization_digest: z
    .string()
    .regex(/^hmac-sha256:[0-9a-f]{64}$/)
    .optional(),
});

/**
 * A webhook target as a request (or AUDIT_SINKS) names it: a whole URL, never with credentials
 * in it (`user:pass@` would be kept verbatim wherever the URL goes).
 */
export const webhookTargetRequestSchema = z.object({
  kind: z.literal('webhook'),
  format: webhookTargetSchema.shape.format,
  events: z.array(z.enum(SIGNAL_URIS)).min(1).max(SIGNAL_URIS.length).optional(),
  url: webhookUrl.refine(
    (url) => {
      // What `new URL` cannot read is refused above, without a throw here.
      if (!URL.canParse(url)) return true;
      const parsed = new URL(url);
      return parsed.username === '' && parsed.password === '';
    },
    {
      message:
        "a webhook URL may not carry a user name or password (user:pass@): deliveries are signed with the sink's secret; a token the receiver needs may go in the path or query, which are kept sealed",
    },
  ),
});

/** RFC 5424 messages over TCP (RFC 6587 octet counting), TLS per RFC 5425 when `tls`. */
export const syslogTargetSchema = z.object({
  kind: z.literal('syslog'),
  host: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  tls: z.boolean(),
});

/**
 * A syslog target as a request may name it: a host name or an IP address, no space, control
 * character or newline. Only new targets: the event schema above reads what was recorded.
 */
export const syslogTargetRequestSchema = syslogTargetSchema.extend({
  host: syslogTargetSchema.shape.host.regex(
    /^[A-Za-z0-9._:[\]-]+$/,
    'a host name or an IP address',
  ),
});

/**
 * A Shared Signals stream its receiver polls (RFC 8936, `POST /v1/ssf/poll/{sink_id}` with the
 * sink's secret): nothing leaves unasked, so no target rules apply; `events` as a pushed one's.
 */
export const pollTargetSchema = z.object({
  kind: z.literal('poll'),
  events: webhookTargetSchema.shape.events,
});

/** A sink's target as a request names it (see {@link syslogTargetRequestSchema}). */
export const sinkTargetRequestSchema = z.discriminatedUnion('kind', [
  webhookTargetRequestSchema,
  syslogTargetRequestSchema,
  pollTargetSchema.extend({ events: webhookTargetRequestSchema.shape.events }),
]);

/** A sink's target: one of the three kinds. */
export const sinkTargetSchema = z.discriminatedUnion('kind', [
  webhookTargetSchema,
  syslogTargetSchema,
  pollTargetSchema,
]);
export type SinkTarget = z.infer<typeof sinkTargetSchema>;

/** An admin created a sink. A webhook's secret is never in the event (sealed in its row). */
const sinkCreatedFields = z.object({
  sink_id: z.string(),
  name: z.string(),
  target: sinkTargetSchema,
});

/** A sink created: by an admin, or a Shared Signals stream by its receiver (SSF 1.0 §8.1.1.1). */
export const sinkCreatedSchema = sinkCreatedFields.extend({
  /** The client that made the stream and alone manages it; absent: an admin's sink. */
  receiver: z.string().optional(),
});

/**
 * An admin (or a stream's receiver) changed a sink's name or target, or gave a webhook a new signing secret (the secret
 * itself never in the event); its cursor stays where it is.
 */
export const sinkChangedSchema = sinkCreatedFields.extend({
  secret_rotated: z.boolean().optional(),
});

/**
 * Delivery to a sink stopped: by the deliverer after its retry bound (`failing`, actor the
 * service), or by an admin. The cursor stays: nothing after it is lost, only delayed.
 */
export const sinkPausedSchema = z.object({
  sink_id: z.string(),
  /** `receiver`: a stream's receiver asked (SSF 1.0 §8.1.2.2), with its reason if it gave one. */
  reason: z.enum(['failing', 'admin', 'receiver']),
  note: z.string().max(200).optional(),
  attempts: z.number().int().min(0),
  last_error: z.string().nullable(),
});

/** An admin deleted a sink: its secret and sealed path dropped, no longer counted. */
export const sinkDeletedSchema = z.object({ sink_id: z.string(), name: z.string() });

/** Delivery resumes from the cursor: an admin said so, or the sink answered a probe again. */
export const sinkResumedSchema = z.object({
  sink_id: z.string(),
  reason: z.enum(['admin', 'answering', 'receiver']),
});

/**
 * A stream's receiver asked for a verification event (SSF 1.0 §8.1.4.2): the SET that carries
 * `state` back goes to that stream alone.
 */
export const streamVerificationRequestedSchema = z.object({
  sink_id: z.string(),
  state: z.string().max(256).optional(),
});

/**
 * A stream's receiver acknowledged SETs (issue 65, item 4): pushed ones answered 2xx (RFC 8935),
 * polled ones acknowledged (RFC 8936). With a signal's own event, it proves the receiver was told
 * by this event's time; each SET by its `jti` and the event it was made of.
 */
export const signalsDeliveredSchema = z.object({
  sink_id: z.string(),
  method: z.enum(['push', 'poll']),
  sets: z
    .array(
      z.object({
        jti: z.string().max(64),
        event_id: z.string().max(64),
        /** The receiver took it but refused it (RFC 8936 `setErrs`): its error code. */
        error: z.string().max(64).optional(),
      }),
    )
    .min(1)
    .max(1000),
});

/** The sinks' events; a webhook's secret is sealed in its row, so nothing to redact here. */
export const SINK_EVENTS = {
  'sink-created': declareEvent(sinkCreatedSchema, {
    audit: ['sink_id', 'name', 'target'],
    example: ({ clientId }) => ({
      sink_id: `sink-${clientId}`,
      name: 'siem',
      target: { kind: 'webhook', url: 'https://siem.example/intake' },
    }),
  }),
  'sink-changed': declareEvent(sinkChangedSchema, {
    audit: ['sink_id', 'name', 'target'],
    example: ({ clientId }) => ({
      sink_id: `sink-${clientId}`,
      name: 'siem',
      target: { kind: 'syslog', host: 'syslog.example', port: 6514, tls: true },
    }),
  }),
  'sink-paused': declareEvent(sinkPausedSchema, {
    audit: ['sink_id', 'reason', 'attempts', 'last_error'],
    example: ({ clientId }) => ({
      sink_id: `sink-${clientId}`,
      reason: 'failing',
      attempts: 12,
      last_error: 'HTTP 500',
    }),
  }),
  'sink-resumed': declareEvent(sinkResumedSchema, {
    audit: ['sink_id', 'reason'],
    example: ({ clientId }) => ({ sink_id: `sink-${clientId}`, reason: 'admin' }),
  }),
  'stream-verification-requested': declareEvent(streamVerificationRequestedSchema, {
    audit: ['sink_id'],
    signal: (data) => ({
      type: 'verification',
      subject: { stream: data.sink_id },
      ...(data.state === undefined ? {} : { fields: { state: data.state } }),
    }),
    example: ({ clientId }) => ({ sink_id: `sink-${clientId}`, state: 'VGhpcyBpcyBhbiBleGFtcGxl' }),
  }),
  'sink-deleted': declareEvent(sinkDeletedSchema, {
    audit: ['sink_id', 'name'],
    example: ({ clientId }) => ({ sink_id: `sink-${clientId}`, name: 'siem' }),
  }),
  'signals-delivered': declareEvent(signalsDeliveredSchema, {
    audit: ['sink_id', 'method', 'sets'],
    metric: null,
    example: ({ clientId, id }) => ({
      sink_id: `sink-${clientId}`,
      method: 'push',
      sets: [{ jti: 'q1Xk2mS9Yb3vN0pLr7TzAw', event_id: id() }],
    }),
  }),
};
