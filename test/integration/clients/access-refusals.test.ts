import { SignJWT, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../../support/test-service.js';

const SPACE = 'space-refusals';
// One fixed minute: every attempt of a test falls in one budget window.
const minute = Math.floor(Date.now() / 60_000) * 60_000;
let offsetMs = 1000;
let service: TestService;

beforeAll(async () => {
  service = await startTestService(
    { FAILED_AUTH_EVENTS_PER_MINUTE: '3', FAILED_AUTH_LIMIT_PER_MINUTE: '1000' },
    undefined,
    undefined,
    { clock: { now: () => minute + offsetMs } },
  );
});

const get = (path: string, headers: Record<string, string>) =>
  fetch(`${service.baseUrl}${path}`, { headers });
type Row = { space_id: string; event_type: string; data: Record<string, unknown>; actor: string };
const refusals = async (where = 'TRUE') =>
  (
    await service.database.pool.query<Row>(
      `SELECT space_id, event_type, data, metadata->>'actor' AS actor FROM events
        WHERE event_type IN ('access-refused', 'access-refusals-summarized') AND (${where})
        ORDER BY global_position`,
    )
  ).rows;

describe('refused login-token requests leave bounded events', () => {
  it('a token that does not verify: an event in the service space, never the token', async () => {
    const { privateKey } = await generateKeyPair('EdDSA');
    const forged = await new SignJWT({ spaces: [SPACE] })
      .setProtectedHeader({ alg: 'EdDSA' })
      .setSubject('alice')
      .setExpirationTime('5m')
      .sign(privateKey);
    const response = await get('/v1/credentials', {
      authorization: `Bearer ${forged}`,
      'x-service-space-id': SPACE,
    });
    expect(response.status).toBe(401);
    const rows = await refusals(`data->>'reason' = 'invalid_login_token'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      space_id: '_system',
      actor: 'anonymous',
      data: {
        reason: 'invalid_login_token',
        subject: null,
        operation: 'listCredentials',
        requested_space: SPACE,
      },
    });
    expect(JSON.stringify(rows)).not.toContain(forged.split('.')[2]);
  });

  it('no Authorization header: a plain 401 that records nothing', async () => {
    const before = (await refusals()).length;
    expect((await get('/v1/credentials', { 'x-service-space-id': SPACE })).status).toBe(401);
    expect((await refusals()).length).toBe(before);
  });

  it('a valid token for another space: an event in the space it asked for, naming the user', async () => {
    const mallory = await service.loginToken(['space-mallory'], 'mallory');
    const response = await get('/v1/audit/events', {
      authorization: `Bearer ${mallory}`,
      'x-service-space-id': SPACE,
    });
    expect(response.status).toBe(403);
    const rows = await refusals(`data->>'subject' = 'mallory'`);
    expect(rows).toEqual([
      expect.objectContaining({
        space_id: SPACE,
        actor: 'user:mallory',
        data: expect.objectContaining({ reason: 'space_not_granted', requested_space: SPACE }),
      }),
    ]);
  });

  it("an auditor's change: an event in the auditor's own space", async () => {
    const carol = await service.loginToken([SPACE], 'carol', 'auditor');
    const response = await fetch(`${service.baseUrl}/v1/credential`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${carol}`,
        'x-service-space-id': SPACE,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ name: 'x', description: 'y' }),
    });
    expect(response.status).toBe(403);
    const rows = await refusals(`data->>'subject' = 'carol'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      space_id: SPACE,
      data: { reason: 'role_forbidden', operation: 'createCredential' },
    });
  });

  it('one user naming 40 spaces not theirs adds the budget and one summary, every attempt counted', async () => {
    const eve = await service.loginToken(['space-eve'], 'eve');
    for (let i = 0; i < 40; i += 1) {
      const response = await get('/v1/credentials', {
        authorization: `Bearer ${eve}`,
        'x-service-space-id': `victim-${i}`,
      });
      expect(response.status).toBe(403);
    }
    const recorded = await refusals(`data->>'subject' = 'eve'`);
    expect(recorded).toHaveLength(3);
    expect(recorded.map((row) => row.space_id)).toEqual(['victim-0', 'victim-1', 'victim-2']);

    // The minute ends (by the service's clock); its summary is due (the timer would write it
    // within seconds; here at once).
    offsetMs = 61_000;
    await service.api.commands.refusals.flushClosedWindows();
    const rows = await refusals(`data->>'subject' = 'eve'`);
    const summaries = rows.filter((row) => row.event_type === 'access-refusals-summarized');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]).toMatchObject({
      space_id: '_system',
      data: { reason: 'space_not_granted', refused: 37, requested_space_count: 40 },
    });
    expect((summaries[0]!.data.requested_spaces as string[]).length).toBe(40);
  });
});
