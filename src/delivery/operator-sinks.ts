import { z } from 'zod';
import { targetRefusal, type TargetRules } from '#outbound/target-rules.js';
import {
  syslogTargetRequestSchema,
  webhookTargetRequestSchema,
} from '../domain/event-data/sink.js';

/** An operator sink's id: short, and not one a space's sink can have (those start `snk_`). */
const operatorId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits, -');

/** AUDIT_SINKS: the operator's sinks as JSON; their secrets and CAs are never stored or logged. */
export const operatorSinksSchema = z.array(
  z.discriminatedUnion('kind', [
    // The operator's sinks carry the audit trail only: a signal stream is a space's. Said, not
    // stripped: a partner's feed set up as a stream must not get every space's trail instead.
    webhookTargetRequestSchema.extend({
      format: z
        .undefined({
          error:
            "an operator sink carries the audit trail: a signal stream is a space's (POST /v1/sinks)",
        })
        .optional(),
      events: z
        .undefined({
          error: 'an operator sink carries the audit trail, not chosen signals',
        })
        .optional(),
      id: operatorId,
      secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{24,}={0,2}$/, 'a whsec_ secret (base64)'),
    }),
    syslogTargetRequestSchema.extend({ id: operatorId, ca: z.string().optional() }),
  ]),
);
export type OperatorSink = z.infer<typeof operatorSinksSchema>[number];

/** The sink id of an operator sink in the tables and events: `operator-<id>`. */
export const operatorSinkId = (id: string) => `operator-${id}`;

/** Why each operator sink is refused, as `AUDIT_SINKS[<index>]: <why>`: a space's SSRF rules. */
export const operatorSinkRefusals = (sinks: readonly OperatorSink[], rules: TargetRules) =>
  sinks.flatMap((sink, index) => {
    const refusal = targetRefusal(sink, rules);
    return refusal ? [`AUDIT_SINKS[${index}]: ${refusal}`] : [];
  });
