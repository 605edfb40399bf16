import { z } from 'zod';
import { addressList, oneOf, optional, text } from '#settings/setting-types.js';

const ratio = (fallback: number) => z.coerce.number().min(0).max(1).default(fallback);
const otlpUrl = z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' });

/**
 * OpenTelemetry traces, by the variables every OpenTelemetry SDK reads; off unless an OTLP
 * endpoint is set (or the console exporter asked for).
 */
export const tracingSettings = {
  OTEL_EXPORTER_OTLP_ENDPOINT: optional(otlpUrl, 'tracing off').describe(
    'The OTLP/HTTP collector (`http://otel-collector:4318`): traces are sent as protobuf to `<endpoint>/v1/traces`. Setting it (or the next) turns tracing on in the API, the projector and the deliverer.',
  ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optional(otlpUrl).describe(
    'The full URL traces are sent to, used as is (no `/v1/traces` added); wins over `OTEL_EXPORTER_OTLP_ENDPOINT`.',
  ),
  OTEL_TRACES_EXPORTER: oneOf(['otlp', 'console', 'none'], 'otlp').describe(
    '`otlp` (to the endpoint above, when one is set), `console` (spans printed to standard output, for a look without a collector) or `none` (tracing off whatever else is set).',
  ),
  OTEL_SERVICE_NAME: text('token-authority', 200).describe("The traces' `service.name`."),
  OTEL_TRACES_SAMPLER: oneOf(
    [
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ],
    'parentbased_always_on',
  ).describe(
    'Which requests are traced, as the OpenTelemetry specification names samplers; `parentbased_*` follows the sampling decision of a trusted caller (`OTEL_TRUSTED_TRACE_SOURCES`).',
  ),
  OTEL_TRACES_SAMPLER_ARG: ratio(1).describe(
    'The ratio of traces kept by the `*traceidratio` samplers (`0.01`: one in a hundred).',
  ),
  OTEL_TRUSTED_TRACE_SOURCES: optional(
    addressList('expected addresses or CIDR blocks (10.20.0.0/16), never a /0'),
    'none: every request starts its own trace',
  ).describe(
    "Comma-separated addresses and CIDR blocks (`10.0.0.0/8,fd12::/48`) of the callers whose `traceparent` is continued, matched against the connection's own address (not X-Forwarded-For). Any other caller's request starts a trace of its own, with the context it sent as a link: an outsider can neither join our traces nor choose what is sampled.",
  ),
};
