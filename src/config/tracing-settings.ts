import { z } from 'zod';
import net from 'node:net';
import { settingNotes } from './setting-notes.js';
import { commaList } from './setting-types.js';

/** An address or a CIDR block, never one that means everyone (`/0`). */
const addressBlock = z.string().refine(
  (entry) => {
    const [address = '', prefix, extra] = entry.split('/');
    const family = net.isIP(address);
    if (family === 0 || extra !== undefined) return false;
    if (prefix === undefined) return true;
    const bits = Number(prefix);
    return /^\d{1,3}$/.test(prefix) && bits >= 1 && bits <= (family === 4 ? 32 : 128);
  },
  { message: 'expected addresses or CIDR blocks (10.20.0.0/16), never a /0' },
);

const otlpUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

/**
 * OpenTelemetry traces (part of configSchema), by the variables every OpenTelemetry SDK reads;
 * off unless an OTLP endpoint is set (or the console exporter asked for).
 */
export const tracingSettings = {
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl
    .optional()
    .describe(
      'The OTLP/HTTP collector (`http://otel-collector:4318`): traces are sent as protobuf to `<endpoint>/v1/traces`. Setting it (or the next) turns tracing on in the API, the projector and the deliverer.',
    )
    .register(settingNotes, { defaultNote: 'tracing off' }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: otlpUrl
    .optional()
    .describe(
      'The full URL traces are sent to, used as is (no `/v1/traces` added); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
    ),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'console', 'none'])
    .default('otlp')
    .describe(
      '`otlp` (to the endpoint above, when one is set), `console` (spans printed to standard output, for a look without a collector) or `none` (tracing off whatever else is set).',
    ),
  OTEL_SERVICE_NAME: z
    .string()
    .min(1)
    .max(200)
    .default('token-authority')
    .describe("The traces' `service.name`."),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on')
    .describe(
      'Which requests are traced, as the OpenTelemetry specification names samplers; `parentbased_*` follows the sampling decision of a trusted caller (`OTEL_TRUSTED_TRACE_SOURCES`).',
    ),
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number()
    .min(0)
    .max(1)
    .default(1)
    .describe(
      'The ratio of traces kept by the `*traceidratio` samplers (`0.01`: one in a hundred).',
    ),
  OTEL_TRUSTED_TRACE_SOURCES: commaList
    .pipe(z.array(addressBlock))
    .optional()
    .describe(
      "Comma-separated addresses and CIDR blocks (`10.0.0.0/8,fd12::/48`) of the callers whose `traceparent` is continued, matched against the connection's own address (not X-Forwarded-For). Any other caller's request starts a trace of its own, with the context it sent as a link: an outsider can neither join our traces nor choose what is sampled.",
    )
    .register(settingNotes, { defaultNote: 'none: every request starts its own trace' }),
};
