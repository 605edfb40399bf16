import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSpans } from '../../src/http/server-span.js';
import { linkedSpans } from '../../src/observability/linked-spans.js';
import {
  flushTraces,
  startTraceExport,
  type TraceExport,
} from '../../src/observability/trace-export.js';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlp-receiver.js';

/**
 * Under the examples' sampler (parentbased_traceidratio), a projector batch or a delivery is a
 * root of its own: kept when it links a recorded trace, judged by the ratio when it links none.
 */
let receiver: OtlpReceiver;
let traces: TraceExport;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // Ratio 0: any span kept here is kept for its links alone.
  traces = startTraceExport({
    to: { url: `${receiver.endpoint}/v1/traces` },
    serviceName: 'linked-sampling',
    sampler: 'parentbased_traceidratio',
    ratio: 0,
  });
});
afterAll(async () => {
  await traces.shutdown();
  await receiver.close();
});

describe('a background span under a ratio sampler', () => {
  it('is kept when it links a recorded trace, and left to the ratio when it links none', async () => {
    const spans = linkedSpans();
    const sampled = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) };
    await spans(
      'projector.batch',
      async () => 1,
      async () => ({ attributes: {}, links: [sampled] }),
    );
    await spans(
      'projector.idle',
      async () => 1,
      async () => ({ attributes: {}, links: [] }),
    );
    await flushTraces();
    const received = receiver.spans();
    expect(received.map((span) => span.name)).toEqual(['projector.batch']);
    expect(received[0]!.links).toEqual([sampled]);
  });
});

describe('a request from an untrusted source under a ratio sampler', () => {
  it('is not kept because its traceparent says sampled: an outsider cannot force sampling', async () => {
    const before = receiver.spans().length;
    const ctx = {
      headers: { traceparent: `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01` },
      method: 'GET',
      path: '/healthz',
      protocol: 'http',
      ip: '203.0.113.9',
      status: 200,
      state: {},
      request: {},
      req: { httpVersion: '1.1', socket: { remoteAddress: '203.0.113.9' } },
    };
    for (let i = 0; i < 5; i += 1) {
      await serverSpans(() => false)(ctx as never, async () => undefined);
    }
    await flushTraces();
    expect(receiver.spans().length).toBe(before);
  });
});
