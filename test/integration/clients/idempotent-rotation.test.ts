import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { purgeExpiredIdempotentResponses } from '../../../src/projections/idempotent-responses.js';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-idem';
let service: TestService;
let login: string;

beforeAll(async () => {
  service = await startTestService();
  login = await service.loginToken([SPACE], 'alice');
});

type Rotated = { client_id: string; client_secret: string; previous_secret_expires_at: string };
const rotate = (
  clientId: string,
  key?: string,
  body: unknown = { overlap_seconds: 600 },
  as: string = login,
) =>
  fetch(`${service.baseUrl}/v1/credential/${clientId}/secret`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${as}`,
      'x-service-space-id': SPACE,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify(body),
  });
const grant = (clientId: string, secret: string) =>
  service.post('/v1/credential/token', {
    client_id: clientId,
    client_secret: secret,
    audience: AUDIENCE,
    grant_type: 'client_credentials',
  });
const rotations = async (clientId: string) =>
  (
    await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events
        WHERE event_type = 'credential-secret-rotated' AND data->>'client_id' = $1`,
      [clientId],
    )
  ).rows[0]!.n;

describe('secret rotation with an Idempotency-Key', () => {
  it('a retry with the same key gets the same new secret and rotates nothing more', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const key = 'rotation-2026-11-23-0001';
    const first = await rotate(credential.client_id, key);
    expect(first.status).toBe(200);
    const rotated = (await first.json()) as Rotated;
    // The caller never saw that answer (a 503 from a proxy after the commit, say) and retries.
    const again = await rotate(credential.client_id, key);
    expect(again.status).toBe(200);
    expect(again.headers.get('cache-control')).toBe('no-store');
    expect(await again.json()).toEqual(rotated);
    expect(await rotations(credential.client_id)).toBe(1);
    // Both the secret still in use and the new one work: the retry ended neither.
    expect((await grant(credential.client_id, credential.client_secret)).status).toBe(200);
    expect((await grant(credential.client_id, rotated.client_secret)).status).toBe(200);

    // The log names the key by its hash only; the kept response holds no secret in the clear.
    const { rows } = await service.database.pool.query<{ data: Record<string, unknown> }>(
      `SELECT data FROM events WHERE event_type = 'credential-secret-rotated'
        AND data->>'client_id' = $1`,
      [credential.client_id],
    );
    expect(rows[0]!.data.idempotency_key_sha256).toBe(
      createHash('sha256')
        .update(JSON.stringify(['user:alice', key]))
        .digest('base64url'),
    );
    const kept = await service.database.pool.query<{ text: string }>(
      'SELECT sealed_response::text AS text FROM idempotent_responses',
    );
    for (const row of kept.rows) expect(row.text).not.toContain(rotated.client_secret);
  });

  it("a key belongs to its caller: another admin's same key rotates anew, and a replay is an audit event", async () => {
    const credential = await createCredentialVia(service, SPACE);
    const key = 'shared-looking-key-0001';
    const alices = (await (await rotate(credential.client_id, key)).json()) as Rotated;
    const bob = await service.loginToken([SPACE], 'bob', 'admin');
    const bobs = await rotate(credential.client_id, key, undefined, bob);
    expect(bobs.status).toBe(200);
    expect(((await bobs.json()) as Rotated).client_secret).not.toBe(alices.client_secret);
    expect(await rotations(credential.client_id)).toBe(2);
    // Alice's retry gets her answer again, and the log says it was shown again, to whom.
    expect(
      ((await (await rotate(credential.client_id, key)).json()) as Rotated).client_secret,
    ).toBe(alices.client_secret);
    const { rows } = await service.database.pool.query<{ data: unknown; actor: string }>(
      `SELECT data, metadata->>'actor' AS actor FROM events
        WHERE event_type = 'credential-secret-replayed' AND data->>'client_id' = $1`,
      [credential.client_id],
    );
    expect(rows).toEqual([
      {
        data: {
          client_id: credential.client_id,
          idempotency_key_sha256: createHash('sha256')
            .update(JSON.stringify(['user:alice', key]))
            .digest('base64url'),
          replayed_to: 'user:alice',
        },
        actor: 'user:alice',
      },
    ]);
  });

  it('concurrent requests with one key rotate once and all get the same secret', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => rotate(credential.client_id, 'concurrent-key-0001')),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const secrets = new Set(
      await Promise.all(answers.map(async (a) => ((await a.json()) as Rotated).client_secret)),
    );
    expect(secrets.size).toBe(1);
    expect(await rotations(credential.client_id)).toBe(1);
  });

  it('the same key for another request is a 422 that changes nothing', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const other = await createCredentialVia(service, SPACE);
    expect((await rotate(credential.client_id, 'reused-key-0001')).status).toBe(200);
    const otherOverlap = await rotate(credential.client_id, 'reused-key-0001', {
      overlap_seconds: 60,
    });
    expect(otherOverlap.status).toBe(422);
    expect(((await otherOverlap.json()) as { detail: string }).detail).toMatch(/another request/);
    expect((await rotate(other.client_id, 'reused-key-0001')).status).toBe(422);
    expect(await rotations(credential.client_id)).toBe(1);
    expect(await rotations(other.client_id)).toBe(0);
  });

  it('without a key every request rotates; a malformed key is a 400 naming the header', async () => {
    const credential = await createCredentialVia(service, SPACE);
    expect((await rotate(credential.client_id)).status).toBe(200);
    expect((await rotate(credential.client_id)).status).toBe(200);
    expect(await rotations(credential.client_id)).toBe(2);
    const bad = await rotate(credential.client_id, 'short');
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('Idempotency-Key');
    expect(await rotations(credential.client_id)).toBe(2);
  });

  it('kept responses leave the table once their window closed', async () => {
    await service.database.pool.query(
      `INSERT INTO idempotent_responses
         (space_id, idempotency_key_hash, request_hash, sealed_response, expires_at)
       VALUES ('s', 'old', 'r', '{}', now() - interval '1 second'),
              ('s', 'live', 'r', '{}', now() + interval '1 hour')`,
    );
    expect(await purgeExpiredIdempotentResponses(service.database.db)).toBe(1);
    const { rows } = await service.database.pool.query<{ key: string }>(
      `SELECT idempotency_key_hash AS key FROM idempotent_responses WHERE space_id = 's'`,
    );
    expect(rows.map((row) => row.key)).toEqual(['live']);
  });
});
