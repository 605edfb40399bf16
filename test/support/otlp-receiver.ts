import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';

/** A span as the receiver decoded it, ids in hex and attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly links: readonly { traceId: string; spanId: string }[];
  readonly serviceName: unknown;
}

/** An OTLP/HTTP receiver on loopback: what the exporter sent, raw and decoded. */
export interface OtlpReceiver {
  /** The value for OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint: string;
  /** Every request body received, as sent (to look for what must never be in it). */
  readonly bodies: Buffer[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

// The official OTLP definitions (opentelemetry-proto), compiled by protobufjs, as the
// OpenTelemetry JS project shipped them before it wrote its own encoder: decoding with them,
// not with the exporter's code, is what makes this a real receiver.
type ProtoRoot = {
  opentelemetry: {
    proto: {
      collector: {
        trace: { v1: { ExportTraceServiceRequest: { decode(bytes: Uint8Array): unknown } } };
      };
    };
  };
};
const root = createRequire(import.meta.url)(
  'otlp-proto-definitions/build/src/generated/root.js',
) as ProtoRoot;
const Request = root.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

interface AnyValue {
  stringValue?: string;
  intValue?: { toString(): string } | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined && value.stringValue !== null) return value.stringValue;
  if (value.intValue !== undefined && value.intValue !== null)
    return Number(value.intValue.toString());
  if (value.boolValue !== undefined && value.boolValue !== null) return value.boolValue;
  if (value.doubleValue !== undefined && value.doubleValue !== null) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}
const attributesOf = (list: KeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((entry) => [entry.key, valueOf(entry.value)]));
const hex = (bytes: Uint8Array | undefined) => Buffer.from(bytes ?? []).toString('hex');

interface DecodedRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: Uint8Array;
        spanId: Uint8Array;
        parentSpanId?: Uint8Array;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        links?: { traceId: Uint8Array; spanId: Uint8Array }[];
      }[];
    }[];
  }[];
}

/** Starts a receiver that answers every export with 200 and keeps what it got. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: Buffer[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') bodies.push(Buffer.concat(chunks));
      response.writeHead(200, { 'content-type': 'application/x-protobuf' });
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    spans: () =>
      bodies.flatMap((body) =>
        ((Request.decode(body) as DecodedRequest).resourceSpans ?? []).flatMap((resourceSpan) => {
          const serviceName = attributesOf(resourceSpan.resource?.attributes)['service.name'];
          return (resourceSpan.scopeSpans ?? []).flatMap((scope) =>
            (scope.spans ?? []).map((span) => ({
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              kind: span.kind,
              attributes: attributesOf(span.attributes),
              links: (span.links ?? []).map((link) => ({
                traceId: hex(link.traceId),
                spanId: hex(link.spanId),
              })),
              serviceName,
            })),
          );
        }),
      ),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
