import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { flushTraces } from '../../../src/observability/trace-export.js';
import type { OtlpReceiver } from '../../support/otlp-receiver.js';
import { startTracedService } from '../../support/traced-service.js';
import {
  createCredentialVia,
  privateTokenVia,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 53: an unsampled request makes no span (none below its own, none of the database's) and
 * records nothing beside the log: the 99 requests in 100 a 1 % sampler drops cost no trace row.
 */
let receiver: OtlpReceiver;
let service: TestService;

beforeAll(async () => {
  ({ receiver, service } = await startTracedService({ OTEL_TRACES_SAMPLER: 'always_off' }));
});

describe('an unsampled request', () => {
  it('exports nothing and records no trace beside its events, which are appended as ever', async () => {
    const credential = await createCredentialVia(service, 'space-unsampled');
    await privateTokenVia(service, credential);
    await flushTraces();
    expect(receiver.spans()).toEqual([]);
    const { rows } = await sql<{ events: number; traced: number }>`
      SELECT (SELECT count(*) FROM events WHERE space_id = 'space-unsampled')::int AS events,
             (SELECT count(*) FROM event_traces)::int AS traced`.execute(service.database.db);
    expect(rows[0]).toEqual({ events: 2, traced: 0 });
  });
});
