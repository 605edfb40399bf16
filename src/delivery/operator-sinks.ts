import { z } from 'zod';
import { targetRefusal, type TargetRules } from '#outbound/target-rules.js';
import {
  syslogTargetRequestSchema,
  webhookTargetRequestSchema,
} from '../domain/event-data/sink.js';

/** An operator sink's id: short, and not one a space's sink can have (those start `snk_`). */
const operatorId = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits, -');

/**
 * AUDIT_SINKS: the operator's sinks for the whole deployment, as a JSON array. A webhook's
 * `secret` (`whsec_…`) and a syslog sink's `ca` (PEM) are given as the CLI resolved them from
 * `file:` settings; neither is ever stored or logged.
 */
export const operatorSinksSchema = z.array(
  z.discriminatedUnion('kind', [
    webhookTargetRequestSchema.extend({
      id: operatorId,
      secret: z.string().regex(/^whsec_[A-Za-z0-9+/]{24,}={0,2}$/, 'a whsec_ secret (base64)'),
    }),
    syslogTargetRequestSchema.extend({ id: operatorId, ca: z.string().optional() }),
  ]),
);
export type OperatorSink = z.infer<typeof operatorSinksSchema>[number];

/** The sink id of an operator sink in the tables and events: `operator-<id>`. */
export const operatorSinkId = (id: string) => `operator-${id}`;

/**
 * Why the deployment refuses each operator sink, as `AUDIT_SINKS[<index>]: <why>`: the same SSRF
 * rules as a space's sinks (no metadata address, no own port, TLS in production).
 */
export const operatorSinkRefusals = (sinks: readonly OperatorSink[], rules: TargetRules) =>
  sinks.flatMap((sink, index) => {
    const refusal = targetRefusal(sink, rules);
    return refusal ? [`AUDIT_SINKS[${index}]: ${refusal}`] : [];
  });
