import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { SIGNAL_TYPES } from '../../../src/domain/security-signals.js';
import { authlibPython } from '../../support/authlib-python.js';
import {
  adminCall,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 65, item 2: a Shared Signals stream its receiver polls (RFC 8936). What it did not
 * acknowledge comes again, the same bytes, after the receiver restarts; what it acknowledged
 * does not; nothing revoked meanwhile is lost; nothing before the stream, or of another space,
 * is in it.
 */
const SPACE = 'space-polled';
const REVOKED = SIGNAL_TYPES['session-revoked'];
let service: TestService;
let credential: { client_id: string; client_secret: string };

beforeAll(async () => {
  service = await startTestService();
  expect((await adminCall(service, SPACE, 'POST', '/v1/space/signing-keys')).status).toBe(200);
  credential = await createCredentialVia(service, SPACE, 'storefront');
});

/** Revokes a new token of the space's storefront; its jti. */
async function revokedJti(): Promise<string> {
  const token = await privateTokenVia(service, credential);
  expect((await service.post('/v1/revoke', { ...credential, token })).status).toBe(200);
  return decodeJwt(token).jti!;
}

async function pollStream() {
  const made = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
    name: 'polled',
    target: { kind: 'poll' },
  });
  expect(made.status).toBe(201);
  const { sink_id: streamId, secret } = (await made.json()) as { sink_id: string; secret: string };
  const issuer = `${service.config.TOKEN_ISSUER}/spaces/${SPACE}`;
  const keys = createRemoteJWKSet(
    new URL(`${service.baseUrl}/spaces/${SPACE}/.well-known/jwks.json`),
  );
  const poll = async (body: object, bearer = secret, id = streamId) => {
    const response = await service.post(`/v1/ssf/poll/${id}`, body, {
      authorization: `Bearer ${bearer}`,
    });
    return {
      status: response.status,
      body: (await response.json()) as {
        sets: Record<string, string>;
        moreAvailable: boolean;
      },
    };
  };
  /** The jtis of the tokens the answer's SETs revoke, each SET verified, in the answer's order. */
  const revokedIn = async (sets: Record<string, string>) => {
    const subjects: string[] = [];
    for (const [jti, set] of Object.entries(sets)) {
      const { payload } = await jwtVerify(set, keys, {
        issuer,
        audience: streamId,
        typ: 'secevent+jwt',
      });
      expect(payload.jti).toBe(jti);
      expect(Object.keys(payload.events as object)).toEqual([REVOKED]);
      subjects.push((payload.sub_id as { id: string }).id);
    }
    return subjects;
  };
  return { streamId, secret, poll, revokedIn };
}

describe('a polled Shared Signals stream (RFC 8936)', () => {
  it('serves what was not acknowledged again after a restart, loses nothing revoked meanwhile, and nothing before it', async () => {
    const before = await revokedJti();
    const { poll, revokedIn, streamId } = await pollStream();
    const first = [await revokedJti(), await revokedJti(), await revokedJti()];

    const got = await poll({ maxEvents: 10 });
    expect(got.status).toBe(200);
    expect(await revokedIn(got.body.sets)).toEqual(first);
    expect(await revokedIn(got.body.sets)).not.toContain(before);

    // The receiver restarts having acknowledged nothing: the same SETs, the same bytes.
    const again = await poll({ maxEvents: 10 });
    expect(again.body.sets).toEqual(got.body.sets);

    // While it was away, two more; it acknowledges the first three.
    const second = [await revokedJti(), await revokedJti()];
    const next = await poll({ maxEvents: 10, ack: Object.keys(got.body.sets) });
    expect(await revokedIn(next.body.sets)).toEqual(second);

    // An acknowledgement out of order moves nothing past the SET still waiting.
    const [waiting, taken] = Object.keys(next.body.sets);
    const partial = await poll({ maxEvents: 10, ack: [taken!] });
    expect(Object.keys(partial.body.sets)).toEqual([waiting]);

    const done = await poll({ maxEvents: 10, ack: [waiting!], setErrs: {} });
    expect(done.body).toEqual({ sets: {}, moreAvailable: false });

    // A SET the receiver reports an error for is not sent again, and logged with its error.
    await revokedJti();
    const rejected = Object.keys((await poll({ maxEvents: 10 })).body.sets);
    expect(rejected).toHaveLength(1);
    const afterError = await poll({
      maxEvents: 10,
      setErrs: { [rejected[0]!]: { err: 'invalid_key', description: 'not trusted' } },
    });
    expect(afterError.body).toEqual({ sets: {}, moreAvailable: false });

    // Each SET acknowledged is logged once, when it was, by whoever holds the stream's secret.
    const { rows } = await sql<{
      data: { method: string; sets: { jti: string; error?: string }[] };
      actor: string;
    }>`
      SELECT data, metadata->>'actor' AS actor FROM events
      WHERE event_type = 'signals-delivered' AND data->>'sink_id' = ${streamId}
      ORDER BY global_position`.execute(service.database.db);
    expect(rows.map((row) => [row.data.method, row.actor])).toEqual(
      rows.map(() => ['poll', `stream-secret:${streamId}`]),
    );
    expect(rows.map((row) => row.data.sets.map(({ jti, error }) => [jti, error]))).toEqual([
      Object.keys(got.body.sets).map((jti) => [jti, undefined]),
      [[taken, undefined]],
      [[waiting, undefined]],
      [[rejected[0], 'invalid_key']],
    ]);
  });

  it('answers 401 to another secret, to an unknown or a pushed stream, 400 to a malformed id, and nothing to a paused one', async () => {
    const { streamId, poll } = await pollStream();
    expect((await poll({}, 'whsec_not-it')).status).toBe(401);
    expect((await poll({}, undefined, 'snk_AAAAAAAAAAAAAAAA')).status).toBe(401);
    // An id not of a stream's form is refused before any query.
    expect((await poll({}, undefined, 'snk_unknown')).status).toBe(400);
    const pushed = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
      name: 'pushed',
      target: { kind: 'webhook', url: 'http://127.0.0.1:9/ssf', format: 'secevent' },
    });
    const { sink_id: pushedId, secret: pushedSecret } = (await pushed.json()) as {
      sink_id: string;
      secret: string;
    };
    expect((await poll({}, pushedSecret, pushedId)).status).toBe(401);
    await revokedJti();
    const paused = await adminCall(service, SPACE, 'POST', `/v1/sinks/${streamId}/pause`);
    expect(paused.status).toBe(200);
    expect((await poll({ maxEvents: 10 })).body).toEqual({ sets: {}, moreAvailable: false });
    const resumed = await adminCall(service, SPACE, 'POST', `/v1/sinks/${streamId}/resume`);
    expect(resumed.status).toBe(200);
    expect(Object.keys((await poll({ maxEvents: 10 })).body.sets)).toHaveLength(1);
    const bad = await service.post(`/v1/ssf/poll/${streamId}`, { maxEvents: 'ten' });
    expect(bad.status).toBe(400);
  });

  it('gives a pushed stream turned polled a new secret: its receivers saw the old one', async () => {
    const pushed = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
      name: 'turned',
      target: { kind: 'webhook', url: 'http://127.0.0.1:9/ssf', format: 'secevent' },
    });
    const { sink_id: id, secret } = (await pushed.json()) as { sink_id: string; secret: string };
    const turned = await adminCall(service, SPACE, 'PATCH', `/v1/sinks/${id}`, {
      target: { kind: 'poll' },
    });
    expect(turned.status).toBe(200);
    const { secret: fresh } = (await turned.json()) as { secret?: string };
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    const audit = await adminCall(service, SPACE, 'PATCH', `/v1/sinks/${id}`, {
      target: { kind: 'webhook', url: 'http://127.0.0.1:9/audit' },
    });
    expect(audit.status).toBe(400);
  });

  it('is read by a receiver nobody here wrote: authlib finds it by its SSF metadata, verifies and acknowledges', async () => {
    const { streamId, secret } = await pollStream();
    const revoked = [await revokedJti(), await revokedJti()];
    const { stdout } = await promisify(execFile)(
      authlibPython(),
      [
        path.join(import.meta.dirname, '../../interop/ssf_poll_receiver.py'),
        `--metadata-url=${service.baseUrl}/.well-known/ssf-configuration/spaces/${SPACE}`,
        `--poll-url=${service.baseUrl}/v1/ssf/poll/${streamId}`,
        `--stream-id=${streamId}`,
        `--issuer-base=${service.config.TOKEN_ISSUER}`,
        `--reach-base=${service.baseUrl}`,
      ],
      {
        env: { ...process.env, SSF_STREAM_SECRET: secret, PYTHONDONTWRITEBYTECODE: '1' },
        timeout: 30_000,
      },
    );
    const { taken, after_ack: afterAck } = JSON.parse(stdout) as {
      taken: Array<{ event: string; subject: { format: string; id: string } }>;
      after_ack: unknown;
    };
    expect(taken).toEqual(
      revoked.map((id) => ({ event: REVOKED, subject: { format: 'opaque', id } })),
    );
    expect(afterAck).toEqual({ sets: {}, moreAvailable: false });
  });

  it("never carries another space's signals", async () => {
    const { poll, revokedIn } = await pollStream();
    const other = 'space-polled-other';
    const stranger = await createCredentialVia(service, other, 'stranger');
    const token = await privateTokenVia(service, stranger);
    expect((await service.post('/v1/revoke', { ...stranger, token })).status).toBe(200);
    const mine = await revokedJti();
    expect(await revokedIn((await poll({ maxEvents: 10 })).body.sets)).toEqual([mine]);
  });
});
