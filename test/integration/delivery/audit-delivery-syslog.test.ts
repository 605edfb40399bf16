import { randomBytes, randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyEncryptionKey } from '../../../src/crypto/key-encryption.js';
import { startDeliverer, type RunningDeliverer } from '../../../src/delivery/deliverer.js';
import { delivererEvents } from '../../../src/commands/sink/deliverer-events.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { exampleEvents } from '../../support/example-events.js';
import { startRsyslog } from '../../support/delivery/rsyslog.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 43: the syslog sink against Debian's rsyslogd, over TCP and over TLS (RFC 5425): RFC 5424
 * messages with our structured data, octet-counted (RFC 6587), every event once and in order,
 * and the secret hash never in them.
 */
let database: TestDatabase;
const kek = keyEncryptionKey(randomBytes(32));
let deliverer: RunningDeliverer | undefined;

beforeAll(async () => {
  database = await createTestDatabase(6);
});
afterAll(() => deliverer?.stop());

describe('the syslog sink, received by rsyslogd', () => {
  it('delivers every event of the log over TCP and over TLS, in log order, as RFC 5424 with structured data', async () => {
    const plain = await startRsyslog({ tls: false });
    const secured = await startRsyslog({ tls: true });
    try {
      const examples = exampleEvents('ci_syslog');
      const appended: string[] = [];
      for (let i = 0; i < 300; i++) {
        const [type, data] =
          i === 0
            ? (['credential-created', examples['credential-created']] as const)
            : (['audit-log-read', examples['audit-log-read']] as const);
        const eventId = randomUUID();
        appended.push(eventId);
        await appendToStream(database.db, {
          spaceId: `space-syslog-${i % 4}`,
          stream: newStream(`stream-${randomUUID()}`),
          events: [{ eventId, type, data, metadata: { actor: 'test' } }],
        });
      }
      deliverer = startDeliverer({
        db: database.db,
        events: delivererEvents(database.db),
        url: database.url,
        kek,
        issuer: 'https://auth.example.test',
        rules: { production: false, allowHttpHosts: [], ownPorts: [] },
        operatorSinks: [
          { id: 'rsyslog', kind: 'syslog', host: '127.0.0.1', port: plain.port, tls: false },
          {
            id: 'rsyslog-tls',
            kind: 'syslog',
            host: '127.0.0.1',
            port: secured.port,
            tls: true,
            ca: secured.ca,
          },
        ],
        batchSize: 64,
        maxAttempts: 100,
        timeoutMs: 2000,
        backoff: { baseMs: 20, maxMs: 200 },
        probeMs: 200,
        pollMs: 50,
        lingerMs: 0,
        reloadMs: 200,
        leaseMs: 5000,
        standbyRetryMs: 200,
        logger: pino({ level: process.env.DELIVERY_LOG ?? 'silent' }),
      });
      for (const receiver of [plain, secured]) {
        const ids = await waitUntil(
          () => receiver.eventIds(),
          (got) => got.length >= 300,
          {
            timeoutMs: 30_000,
          },
        );
        expect(ids).toEqual(appended);
        const lines = await receiver.lines();
        expect(lines[0]).toContain('[audit@32473 event_id="');
        expect(lines[0]).toContain('type="credential-created"');
        expect(lines.join('\n')).not.toContain(examples['credential-created'].secret_hash);
        expect(lines[0]).toMatch(/"secret_hash":"sha256:[0-9a-f]{64}"/);
      }
    } finally {
      await deliverer?.stop();
      deliverer = undefined;
      await plain.stop();
      await secured.stop();
    }
  }, 60_000);
});
