import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { flushTraces } from '../../src/observability/trace-export.js';
import type { OtlpReceiver } from '../support/otlp-receiver.js';
import { startTracedService } from '../support/traced-service.js';
import { createCredentialVia, privateTokenVia, type TestService } from '../support/test-service.js';

/**
 * Issue 53: an unsampled request makes no span (none below its own, none of the database's),
 * yet its events record its trace beside the log: sampling never changes what is recorded.
 */
let receiver: OtlpReceiver;
let service: TestService;

beforeAll(async () => {
  ({ receiver, service } = await startTracedService({ OTEL_TRACES_SAMPLER: 'always_off' }));
});

describe('an unsampled request', () => {
  it('exports nothing, and its event still records its trace, marked unsampled', async () => {
    const credential = await createCredentialVia(service, 'space-unsampled');
    await privateTokenVia(service, credential);
    await flushTraces();
    expect(receiver.spans()).toEqual([]);
    const { rows } = await sql<{ event_type: string; trace_id: Buffer; sampled: boolean }>`
      SELECT e.event_type, t.trace_id, t.sampled FROM events e
      JOIN event_traces t ON t.global_position = e.global_position
      WHERE e.space_id = 'space-unsampled' ORDER BY e.global_position`.execute(service.database.db);
    expect(rows.map((row) => [row.event_type, row.sampled])).toEqual([
      ['credential-created', false],
      ['private-token-issued', false],
    ]);
    // Two requests, two traces.
    expect(new Set(rows.map((row) => row.trace_id.toString('hex'))).size).toBe(2);
  });
});
