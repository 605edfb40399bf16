import { z } from 'zod';

/**
 * Where a sink delivers the audit trail. A webhook is HTTPS only (http is let through for
 * loopback receivers, which tests and a local collector use): the batches carry a space's
 * history, and a signature does not hide it.
 */
export const webhookTargetSchema = z.object({
  kind: z.literal('webhook'),
  url: z
    .url()
    .max(2000)
    .refine(
      (url) => {
        const parsed = new URL(url);
        if (parsed.protocol === 'https:') return true;
        return (
          parsed.protocol === 'http:' &&
          ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname)
        );
      },
      { message: 'a webhook sink must be https (http only to a loopback address)' },
    ),
});

/** RFC 5424 messages over TCP (RFC 6587 octet counting), TLS per RFC 5425 when `tls`. */
export const syslogTargetSchema = z.object({
  kind: z.literal('syslog'),
  host: z.string().min(1).max(253),
  port: z.number().int().min(1).max(65535),
  tls: z.boolean(),
});

/** A sink's target: one of the two kinds. */
export const sinkTargetSchema = z.discriminatedUnion('kind', [
  webhookTargetSchema,
  syslogTargetSchema,
]);
export type SinkTarget = z.infer<typeof sinkTargetSchema>;

/** An admin created a sink. A webhook's secret is never in the event (sealed in its row). */
export const sinkCreatedSchema = z.object({
  sink_id: z.string(),
  name: z.string(),
  target: sinkTargetSchema,
});

/** An admin changed a sink's name or target (its cursor stays where it is). */
export const sinkChangedSchema = z.object({
  sink_id: z.string(),
  name: z.string(),
  target: sinkTargetSchema,
});

/**
 * Delivery to a sink stopped: by the deliverer after its retry bound (`failing`, actor the
 * service), or by an admin. The cursor stays: nothing after it is lost, only delayed.
 */
export const sinkPausedSchema = z.object({
  sink_id: z.string(),
  reason: z.enum(['failing', 'admin']),
  attempts: z.number().int().min(0),
  last_error: z.string().nullable(),
});

/** Delivery resumes from the cursor: an admin said so, or the sink answered a probe again. */
export const sinkResumedSchema = z.object({
  sink_id: z.string(),
  reason: z.enum(['admin', 'answering']),
});
