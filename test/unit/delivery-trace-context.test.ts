import { describe, expect, it } from 'vitest';
import { toCloudEvent } from '../../src/delivery/cloudevents.js';
import { syslogMessage } from '../../src/delivery/syslog-message.js';
import { webhookBody } from '../../src/delivery/webhook.js';
import type { RecordedEvent } from '../../src/event-store/types.js';
import type { EventTrace } from '../../src/event-store/event-traces.js';

const ISSUER = 'https://auth.example.test';
const event = (globalPosition: number): RecordedEvent => ({
  globalPosition,
  transactionId: '900',
  spaceId: 'space-a',
  streamId: `credential-ci_${globalPosition}`,
  streamPosition: 1,
  eventId: `00000000-0000-4000-8000-00000000000${globalPosition}`,
  type: 'audit-log-read',
  schemaVersion: 1,
  data: { query: {}, rows: 1 },
  metadata: { actor: 'user:alice' },
  recordedAt: new Date('2026-11-27T12:00:00Z'),
});
const traced: EventTrace = {
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: '00f067aa0ba902b7',
};

describe("a delivered event carries its request's trace context", () => {
  it('a CloudEvent gains traceparent (the distributed-tracing extension) of its sampled trace', () => {
    expect(toCloudEvent(event(1), ISSUER, traced).traceparent).toBe(
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    );
  });

  it('an event made untraced is delivered as before: no traceparent attribute at all', () => {
    expect('traceparent' in toCloudEvent(event(1), ISSUER)).toBe(false);
  });

  it("syslog's structured data names the trace id, and only for a traced event", () => {
    expect(syslogMessage(event(1), ISSUER, traced)).toContain(
      ` type="audit-log-read" trace_id="${traced.traceId}"]`,
    );
    expect(syslogMessage(event(1), ISSUER)).not.toContain('trace_id=');
  });

  it("a webhook batch gives each event its own request's trace, by log position", () => {
    const body = JSON.parse(
      webhookBody(
        {
          sinkId: 'snk_a',
          events: [event(1), event(2)],
          from: { transactionId: '0', globalPosition: 0 },
          through: { transactionId: '900', globalPosition: 2 },
          traces: new Map([[2, traced]]),
        },
        ISSUER,
      ),
    ) as Array<{ traceparent?: string }>;
    expect(body.map((each) => each.traceparent)).toEqual([
      undefined,
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    ]);
  });
});
