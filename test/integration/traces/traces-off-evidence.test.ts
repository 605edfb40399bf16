import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { sql } from 'kysely';
import { startProjectorService } from '../../../src/cli/projector-service.js';
import { checkExportLeaves } from '../../support/export-check.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import type { RunningProjector } from '../../../src/projections/projector.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 53: with tracing off (the default), joining events to traces costs nothing and changes
 * nothing: no row beside the log, no trace in the audit view or the export, which checks as it
 * did before traces existed.
 */
const SPACE = 'space-untraced';
let service: TestService;
let projector: RunningProjector;

beforeAll(async () => {
  service = await startTestService();
  projector = await startProjectorService(service.config, pino({ level: 'silent' }), {
    handle: service.database,
    url: service.database.url,
  });
});
afterAll(() => projector.stop());

describe('tracing off', () => {
  it('no trace rows beside the log, none shown or exported, and the export checks', async () => {
    const credential = await createCredentialVia(service, SPACE);
    await privateTokenVia(service, credential);
    await projector.nextPass();
    const { rows } = await sql<{ traced: number; events: number }>`
      SELECT (SELECT count(*) FROM event_traces)::int AS traced,
             (SELECT count(*) FROM events)::int AS events`.execute(service.database.db);
    expect(rows[0]!.events).toBeGreaterThan(1);
    expect(rows[0]!.traced).toBe(0);

    const headers = {
      authorization: `Bearer ${await service.loginToken([SPACE], 'alice', 'auditor')}`,
      'x-service-space-id': SPACE,
    };
    const audit = (await (
      await fetch(`${service.baseUrl}/v1/audit/events`, { headers })
    ).json()) as { items: Array<{ trace_id: unknown; span_id: unknown }> };
    expect(audit.items.length).toBeGreaterThan(1);
    expect(audit.items.every((item) => item.trace_id === null && item.span_id === null)).toBe(true);

    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    // Sealed by the projector at its own pace: the export holds what was sealed.
    const exported = async () =>
      (
        await (
          await fetch(`${service.baseUrl}/v1/audit/export?from=${from}&to=${to}&through=now`, {
            headers,
          })
        ).text()
      )
        .trim()
        .split('\n');
    const eventsOf = (lines: string[]) =>
      lines.map((line) => JSON.parse(line) as { type: string }).filter((l) => l.type === 'event');
    const lines = await waitUntil(exported, (got) => eventsOf(got).length >= 2);
    const events = eventsOf(lines);
    expect(events.length).toBeGreaterThan(1);
    expect(events.every((line) => !('trace' in line))).toBe(true);
    const check = checkExportLeaves(lines);
    expect(check.verdict).toMatchObject({ ok: true });
  });
});
