import { beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { sql } from 'kysely';
import { flushTraces } from '../../../src/observability/trace-export.js';
import { startProjectorService } from '../../../src/cli/projector-service.js';
import { startWorkerTraces } from '../../../src/cli/traces.js';
import { startDeliverer } from '../../../src/delivery/deliverer.js';
import { delivererEvents } from '../../../src/commands/sink/deliverer-events.js';
import { newWebhookSecret } from '../../../packages/outbound/src/standard-webhooks.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { checkExportLeaves } from '../../support/export-check.js';
import type { OtlpReceiver } from '../../support/otlp-receiver.js';
import { startTracedService } from '../../support/traced-service.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import { waitUntil } from '../../support/wait.js';
import { TEST_DELIVERER_TIMINGS } from '../../support/delivery/deliverer-timings.js';
import {
  createCredentialVia,
  privateTokenVia,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 53's "done when": one public-token issuance followed from its HTTP span to its append,
 * its projector batch, its delivery to a sink and its event's trace id in an export, against an
 * OTLP receiver decoding the official protobuf definitions.
 */
const SPACE = 'space-joined';
const logger = pino({ level: 'silent' });
let receiver: OtlpReceiver;
let service: TestService;

beforeAll(async () => {
  ({ receiver, service } = await startTracedService({ OTEL_SERVICE_NAME: 'ta-joined' }));
});

async function issuePublic(): Promise<void> {
  const credential = await createCredentialVia(service, SPACE);
  const privateToken = await privateTokenVia(service, credential);
  const answer = await service.post(
    '/v1/issue',
    { customer_id: `customer-${randomBytes(6).toString('hex')}`, segment_id: 'segment-1' },
    { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE },
  );
  expect(answer.status).toBe(200);
}

const asUser = async () => ({
  authorization: `Bearer ${await service.loginToken([SPACE], 'alice', 'auditor')}`,
  'x-service-space-id': SPACE,
});

describe('a traced issuance joined to its evidence', () => {
  it('HTTP span → append → projector batch → sink delivery → export, one trace id throughout', async () => {
    await issuePublic();
    await flushTraces();
    const append = receiver
      .spans()
      .find(
        (span) => span.name === 'append' && span.attributes['event.type'] === 'public-token-issued',
      );
    expect(append).toBeDefined();
    const server = receiver
      .spans()
      .find((span) => span.spanId === append!.parentSpanId && span.traceId === append!.traceId);
    expect(server?.name).toBe('POST /v1/issue');
    expect(server?.parentSpanId).toBe('');

    // The event records the append's span beside the log: the audit view shows it.
    const audit = (await (
      await fetch(`${service.baseUrl}/v1/audit/events?event_type=public-token-issued`, {
        headers: await asUser(),
      })
    ).json()) as { items: Array<{ trace_id: string | null; span_id: string | null }> };
    expect(audit.items).toEqual([
      expect.objectContaining({ trace_id: append!.traceId, span_id: append!.spanId }),
    ]);

    // The projector, started as `npm run projector` starts it (tracing from the same settings).
    const projectorDatabase = { handle: service.database, url: service.database.url };
    const projector = await startProjectorService(service.config, logger, projectorDatabase);
    // A webhook sink (the operator's, for the whole log), delivered by a traced deliverer.
    const secret = newWebhookSecret();
    const sink = await startWebhookReceiver(secret);
    const delivererTraces = await startWorkerTraces(service.config, 'client');
    const deliverer = startDeliverer({
      db: service.database.db,
      events: delivererEvents(service.database.db),
      url: service.database.url,
      kek: await loadKeyEncryptionKey(service.config.SIGNING_KEY_ENCRYPTION_KEY, service.dataDir),
      issuer: service.config.TOKEN_ISSUER,
      rules: { production: false, allowHttpHosts: [], ownPorts: [] },
      operatorSinks: [{ id: 'siem', kind: 'webhook', url: sink.url, secret }],
      ...TEST_DELIVERER_TIMINGS,
      logger,
      ...(delivererTraces.spans ? { spans: delivererTraces.spans } : {}),
    });
    try {
      await projector.nextPass();
      const events = await waitUntil(sink.events, (got) =>
        got.some((event) => event.type === 'com.token-authority.public-token-issued'),
      );
      const delivered = events.find((e) => e.type === 'com.token-authority.public-token-issued');
      expect(delivered?.traceparent).toBe(`00-${append!.traceId}-${append!.spanId}-01`);

      await flushTraces();
      const linking = (name: string) =>
        receiver
          .spans()
          .find(
            (span) =>
              span.name === name &&
              span.links.some((l) => l.traceId === append!.traceId && l.spanId === append!.spanId),
          );
      const batch = await waitUntil(
        async () => (await flushTraces(), linking('projector.batch')),
        (found) => found !== undefined,
      );
      expect(batch!.parentSpanId).toBe('');
      expect(batch!.traceId).not.toBe(append!.traceId);
      expect(batch!.attributes['projector.event_count']).toBeGreaterThanOrEqual(1);
      const delivery = await waitUntil(
        async () => (await flushTraces(), linking('sink.deliver')),
        (found) => found !== undefined,
      );
      expect(delivery!.attributes).toMatchObject({
        'sink.id': 'operator-siem',
        'sink.kind': 'webhook',
      });
    } finally {
      await deliverer.stop();
      await delivererTraces.export?.shutdown();
      await projector.stop();
      await sink.close();
    }

    // The export carries the trace beside each event; its checks, which never read it, pass.
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const exported = await (
      await fetch(`${service.baseUrl}/v1/audit/export?from=${from}&to=${to}`, {
        headers: await asUser(),
      })
    ).text();
    const lines = exported.trim().split('\n');
    const issued = lines
      .map(
        (line) =>
          JSON.parse(line) as { type: string; event?: { event_type?: string }; trace?: unknown },
      )
      .find((line) => line.type === 'event' && line.event?.event_type === 'public-token-issued');
    expect(issued?.trace).toEqual({ trace_id: append!.traceId, span_id: append!.spanId });
    expect(JSON.stringify(issued?.event)).not.toContain(append!.traceId);
    const check = checkExportLeaves(lines);
    expect(check.verdict).toMatchObject({ ok: true });
  }, 60_000);

  it('the trace is recorded beside the log only: the event row (what its leaf covers) never holds it', async () => {
    const { rows } = await sql<{ metadata: unknown; trace_id: Buffer }>`
      SELECT e.metadata, t.trace_id FROM events e
      JOIN event_traces t ON t.global_position = e.global_position
      WHERE e.event_type = 'public-token-issued'`.execute(service.database.db);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(JSON.stringify(row.metadata)).not.toContain(row.trace_id.toString('hex'));
    }
  });
});
