import { describe, expect, it } from 'vitest';
import { toCloudEvent } from '../src/cloudevents.js';
import type { OutboundEvent, TraceContext } from '../src/outbound-event.js';
import { syslogMessage } from '../src/syslog-message.js';
import { webhookBody } from '../src/webhook.js';

const ISSUER = { issuer: 'https://auth.example.test', app: 'token-authority' };
const event = (globalPosition: number): OutboundEvent => ({
  globalPosition,
  spaceId: 'space-a',
  streamId: `credential-ci_${globalPosition}`,
  streamPosition: 1,
  eventId: `00000000-0000-4000-8000-00000000000${globalPosition}`,
  type: 'audit-log-read',
  data: { query: {}, rows: 1 },
  metadata: { actor: 'user:alice' },
  recordedAt: new Date('2026-11-27T12:00:00Z'),
});
const traced: TraceContext = {
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

describe('the sender names itself', () => {
  it("in a CloudEvent's type and source, and in syslog's APP-NAME and host", () => {
    const cloudEvent = toCloudEvent(event(1), { issuer: 'https://a.test/', app: 'other-app' });
    expect(cloudEvent.type).toBe('com.other-app.audit-log-read');
    expect(cloudEvent.source).toBe('https://a.test/spaces/space-a');
    expect(syslogMessage(event(1), ISSUER)).toMatch(
      /^<110>1 2026-11-27T12:00:00.000Z auth.example.test token-authority - audit-log-read /,
    );
  });
});
