import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  domainEvent,
  EVENT_CATALOG,
  EVENT_TYPES,
  type EventType,
} from '../../../src/domain/events.js';
import { appendToStream } from '#event-log/append-to-stream.js';
import { newStream } from '#event-log/stream-ref.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { auditDetails } from '../../../src/projections/audit.js';
import { tokenKindOf } from '../../../src/domain/token/issuances.js';
import { catchUp } from '../../../src/projections/batches.js';
import { exampleEvents } from '../../support/example-events.js';
import { createTestDatabase, type TestDatabase } from '../../support/test-database.js';

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase(5);
});

const SPACE = 'space-registry';
const metadata = { actor: 'test', request_id: 'r-1', client_ip: '127.0.0.1', user_agent: null };

/** Appends one example of every registered type; returns their request id (in their metadata). */
async function appendOneOfEach(clientId: string): Promise<string> {
  const examples = exampleEvents(clientId);
  const requestId = randomUUID();
  for (const type of EVENT_TYPES) {
    await appendToStream(database.db, {
      spaceId: SPACE,
      stream: newStream(`registry-${type}-${randomUUID()}`),
      events: [
        domainEvent(randomUUID(), type, examples[type] as never, {
          ...metadata,
          request_id: requestId,
        }),
      ],
    });
  }
  return requestId;
}

describe('the event registry', () => {
  it('every registered event type is handled by every projection', async () => {
    const clientId = `ci_${randomUUID()}`;
    const requestId = await appendOneOfEach(clientId);
    for (const projection of PROJECTIONS) await catchUp(database.db, projection, 100);

    // Audit: one row per event, with the token kind and details its shape declares.
    const audit = await database.db
      .selectFrom('audit_log')
      .select(['event_type', 'token_kind', 'event_data', 'actor'])
      .where('request_id', '=', requestId)
      .execute();
    expect(audit.map((row) => row.event_type).sort()).toEqual([...EVENT_TYPES].sort());
    for (const row of audit) {
      const declared = EVENT_CATALOG[row.event_type as EventType];
      expect(row.token_kind).toBe(tokenKindOf(row.event_type));
      const details = auditDetails(row.event_type, row.event_data);
      expect(Object.keys(details).sort()).toEqual([...declared.audit].sort());
      expect(row.actor).toBe('test');
    }

    // Rates: each counted type added exactly one to its own counter.
    const rates = await database.db
      .selectFrom('client_rate_minute')
      .select(['private_tokens', 'public_tokens', 'rejected_authentications'])
      .where('client_id', '=', clientId)
      .execute();
    const totals = { private_tokens: 0, public_tokens: 0, rejected_authentications: 0 };
    for (const row of rates) {
      totals.private_tokens += row.private_tokens;
      totals.public_tokens += row.public_tokens;
      totals.rejected_authentications += row.rejected_authentications;
    }
    const expected = { private_tokens: 0, public_tokens: 0, rejected_authentications: 0 };
    const examples = exampleEvents(clientId) as Record<EventType, Record<string, unknown>>;
    for (const type of EVENT_TYPES) {
      const contribution = EVENT_CATALOG[type].rate;
      if (!contribution) continue;
      const fields: readonly string[] = contribution.countFields ?? [];
      expected[contribution.counter] +=
        fields.length === 0
          ? 1
          : fields.reduce((sum, field) => sum + Number(examples[type][field]), 0);
    }
    expect(totals).toEqual(expected);

    // Usage: a client that got a token has its last use.
    const usage = await database.db
      .selectFrom('credential_usage')
      .select('last_used_at')
      .where('client_id', '=', clientId)
      .execute();
    expect(usage).toHaveLength(EVENT_TYPES.some((type) => EVENT_CATALOG[type].isUse) ? 1 : 0);
  });

  it('a projection without a checkpoint row starts from the beginning instead of stalling', async () => {
    await database.db
      .deleteFrom('projection_checkpoints')
      .where('projection', '=', 'rates')
      .execute();
    await database.db.deleteFrom('client_rate_minute').execute();
    await database.db.deleteFrom('client_rate_hour').execute();
    const rates = PROJECTIONS.find((projection) => projection.name === 'rates')!;
    expect(await catchUp(database.db, rates, 100)).toBeGreaterThan(0);
    const checkpoint = await database.db
      .selectFrom('projection_checkpoints')
      .select('global_position')
      .where('projection', '=', 'rates')
      .executeTakeFirstOrThrow();
    expect(checkpoint.global_position).toBeGreaterThan(0);
  });
});
