import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { startTestService, type TestService } from '../../support/test-service.js';
import { BURST_LIMITS, mixedBurst } from '../../support/workload.js';

let service: TestService;
let burst: Awaited<ReturnType<typeof mixedBurst>>;
let login: string;

beforeAll(async () => {
  service = await startTestService(BURST_LIMITS);
  burst = await mixedBurst(service, 300);
  for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 500);
  login = await service.loginToken(['space-one', 'space-two']);
});

const get = (route: string, space = 'space-one', token?: string) =>
  fetch(`${service.baseUrl}${route}`, {
    headers: { authorization: `Bearer ${token ?? login}`, 'x-service-space-id': space },
  });

interface AuditPage {
  items: Array<{
    position: number;
    client_id: string;
    event_type: string;
    token_kind: string | null;
    customer_id: string | null;
    segment_id: string | null;
    client_ip: string | null;
    actor: string | null;
  }>;
  next_cursor: string | null;
}

describe('GET /v1/audit/events', () => {
  it('pages through the whole trail of a space in a stable order, without gaps or repeats', async () => {
    // The trail is read from the log itself, so the reads of this walk (audit-log-read events)
    // join it as it goes: the walk sees every event there was before it started, then a prefix
    // of what came after, each once and in order.
    const { rows: before } = await service.database.pool.query<{ p: number }>(
      `SELECT max(global_position) AS p FROM events WHERE space_id = 'space-one'`,
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await get(`/v1/audit/events?limit=37${cursor ? `&cursor=${cursor}` : ''}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as AuditPage;
      seen.push(...page.items.map((item) => item.position));
      cursor = page.next_cursor;
    } while (cursor);
    const { rows } = await service.database.pool.query<{ p: number }>(
      `SELECT global_position AS p FROM events WHERE space_id = 'space-one' ORDER BY 1`,
    );
    const all = rows.map((row) => row.p);
    expect(seen).toEqual(all.slice(0, seen.length));
    expect(seen.length).toBeGreaterThan(all.filter((p) => p <= before[0]!.p).length);
  });

  it('pages newest first with order=desc, the cursor continuing downwards', async () => {
    const { rows } = await service.database.pool.query<{ p: number }>(
      `SELECT global_position AS p FROM audit_log WHERE space_id = 'space-one' ORDER BY 1 DESC`,
    );
    const seen: number[] = [];
    let cursor: string | null = null;
    do {
      const response = await get(
        `/v1/audit/events?order=desc&limit=41${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as AuditPage;
      seen.push(...page.items.map((item) => item.position));
      cursor = page.next_cursor;
    } while (cursor);
    // Walking down from the newest, the reads recorded meanwhile stand above the first page.
    expect(seen).toEqual(rows.map((row) => row.p));
    expect(seen.length).toBeGreaterThan(41);
  });

  it('filters by client, kind, customer and segment', async () => {
    const client = burst.credentialList[0]!.client_id;
    const page = (await (
      await get(`/v1/audit/events?client_id=${client}&kind=public&segment_id=segment-1&limit=1000`)
    ).json()) as AuditPage;
    expect(page.items.length).toBeGreaterThan(0);
    for (const item of page.items) {
      expect(item).toMatchObject({
        client_id: client,
        token_kind: 'public',
        segment_id: 'segment-1',
        event_type: 'public-token-issued',
      });
      expect(item.client_ip).toBeTruthy();
      expect(item.actor).toBe(`client:${client}`);
    }
    const { rows } = await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE event_type = 'public-token-issued' AND data->>'client_id' = $1 AND data->>'segment_id' = 'segment-1'`,
      [client],
    );
    expect(page.items).toHaveLength(rows[0]!.n);
  });

  it('shows who created a credential and the rejected authentications of a client', async () => {
    const client = burst.credentialList[0]!.client_id;
    const created = (await (
      await get(`/v1/audit/events?client_id=${client}&event_type=credential-created`)
    ).json()) as AuditPage;
    expect(created.items).toHaveLength(1);
    expect(created.items[0]).toMatchObject({ actor: 'user:alice' });
    const failures = (await (
      await get(`/v1/audit/events?client_id=${client}&event_type=client-authentication-failed`)
    ).json()) as AuditPage;
    expect(failures.items.length).toBeGreaterThan(0);
  });

  it('rejects bad query parameters with the parameter named', async () => {
    const response = await get('/v1/audit/events?limit=0&kind=secret&from=yesterday');
    expect(response.status).toBe(400);
    const body = (await response.json()) as { invalid_fields: Array<{ field: string }> };
    expect(body.invalid_fields.map((f) => f.field).sort()).toEqual(['from', 'kind', 'limit']);
    expect((await get('/v1/audit/events?cursor=garbage')).status).toBe(400);
  });

  it('needs a login token for the space: other spaces and access tokens are refused', async () => {
    const other = await service.loginToken(['space-x']);
    expect((await get('/v1/audit/events', 'space-one', other)).status).toBe(403);
    expect((await get('/v1/audit/events', 'space-one', burst.privateTokens[0])).status).toBe(401);
    expect((await fetch(`${service.baseUrl}/v1/audit/events`)).status).toBe(401);
  });
});

describe('GET /v1/monitoring', () => {
  it("reports a client's per-minute counts equal to its events", async () => {
    const client = burst.credentialList[1]!;
    const response = await get(
      `/v1/monitoring/clients/${client.client_id}/rates?granularity=minute&window=2h`,
      'space-two',
    );
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      totals: Record<string, number>;
      buckets: unknown[];
      per_second: Record<string, number>;
    };
    const { rows } = await service.database.pool.query<{ p: number; q: number; r: number }>(
      `SELECT count(*) FILTER (WHERE event_type = 'private-token-issued')::int AS p,
              count(*) FILTER (WHERE event_type = 'public-token-issued')::int AS q,
              count(*) FILTER (WHERE event_type = 'client-authentication-failed')::int AS r
       FROM events WHERE data->>'client_id' = $1`,
      [client.client_id],
    );
    expect(body.totals).toEqual({
      private_tokens: rows[0]!.p,
      public_tokens: rows[0]!.q,
      rejected_authentications: rows[0]!.r,
    });
    expect(body.buckets.length).toBeGreaterThan(0);
    expect(body.per_second.public_tokens).toBeCloseTo(rows[0]!.q / 7200, 6);
  });

  it('ranks the busiest clients of the space', async () => {
    const response = await get('/v1/monitoring/top-clients?window=1h&metric=tokens&limit=3');
    const body = (await response.json()) as {
      clients: Array<{
        client_id: string;
        name: string;
        private_tokens: number;
        public_tokens: number;
      }>;
    };
    expect(body.clients).toHaveLength(3);
    const totals = body.clients.map((c) => Number(c.private_tokens) + Number(c.public_tokens));
    expect([...totals].sort((a, b) => b - a)).toEqual(totals);
    expect(body.clients[0]!.name).toMatch(/^client-/);
  });
});

describe('GET /metrics', () => {
  it('exposes issuance counters, latency histograms and projector lag', async () => {
    // The audit reads of the tests above are events too; project them so lag is 0 again.
    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the lag gauge caches for 250 ms
    const text = await (await fetch(`http://127.0.0.1:${service.api.metricsPort}/metrics`)).text();
    expect(text).toMatch(/token_authority_tokens_issued_total\{kind="public"\} \d+/);
    // Bounded label sets: nothing is labelled per space, whatever tenants exist.
    expect(text).not.toMatch(/space_id=/);
    expect(text).toMatch(
      /token_authority_http_request_duration_seconds_bucket\{.*route="\/v1\/credential\/token".*\}/,
    );
    // A scrape whose lag read failed (a loaded database past the statement timeout) carries no
    // lag series, by design; the next scrape reads again.
    const lag = async () => {
      const scraped = await (
        await fetch(`http://127.0.0.1:${service.api.metricsPort}/metrics`)
      ).text();
      return [
        /token_authority_projector_lag_events\{projection="rates"\} (\S+)/.exec(scraped)?.[1],
        /token_authority_projector_lag_seconds\{projection="rates"\} (\S+)/.exec(scraped)?.[1],
      ];
    };
    await expect.poll(lag, { timeout: 15_000, interval: 300 }).toEqual(['0', '0']);
  });
});

describe('dashboard_projector_lag', () => {
  it('reports the sealing window of the hash chain beside the views', async () => {
    const lag = async () =>
      (
        await service.database.pool.query<{ projection: string; events_behind: string }>(
          'SELECT projection, events_behind FROM dashboard_projector_lag ORDER BY projection',
        )
      ).rows;
    const before = await lag();
    expect(before.map((row) => row.projection)).toEqual(
      [...PROJECTIONS.map((projection) => projection.name), 'chain'].sort(),
    );
    const { rows } = await service.database.pool.query<{ n: string }>(
      'SELECT count(*) AS n FROM events',
    );
    expect(Number(before.find((row) => row.projection === 'chain')?.events_behind)).toBe(
      Number(rows[0]!.n),
    );
    const { sealLog } = await import('../../../src/audit-trail/seal/sealer.js');
    while ((await sealLog(service.database.db, 500)) > 0);
    expect(Number((await lag()).find((row) => row.projection === 'chain')?.events_behind)).toBe(0);
  });
});
