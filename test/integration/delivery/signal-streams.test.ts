import { appendFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSignalDeliverer } from '../../support/signal-deliverer.js';
import { SIGNAL_TYPES } from '../../../src/domain/security-signals.js';
import { createVerifier, nodeSignalHandler } from '../../../packages/verifier/src/index.js';
import { afterFile } from '../../support/after-file.js';
import { startSetReceiver } from '../../support/set-receiver.js';
import {
  adminCall,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 65, item 2: a Shared Signals stream. A space's admin makes a sink of format `secevent`;
 * the deliverer pushes each signal as a Security Event Token signed by the space's own ring
 * (RFC 8935), which a receiver verifies with `jose` against the space's JWKS. The time from a
 * revocation's answer to its SET at the receiver is measured (p50, p99) and written out.
 */
const SPACE = 'space-signals';
const REVOKED = SIGNAL_TYPES['session-revoked'];
const CHANGED = SIGNAL_TYPES['credential-change'];
const COMPROMISED = SIGNAL_TYPES['credential-compromise'];
let service: TestService;

beforeAll(async () => {
  service = await startTestService();
  await startSignalDeliverer(service, [SPACE]);
});

/** A stream made by the space's admin through the API, and a receiver for it. */
async function stream(events?: string[]) {
  const issuer = `${service.config.TOKEN_ISSUER}/spaces/${SPACE}`;
  let streamId = '';
  const receiver = await startSetReceiver({
    issuer,
    jwksUri: `${service.baseUrl}/spaces/${SPACE}/.well-known/jwks.json`,
    audience: () => streamId,
  });
  afterFile(() => receiver.close());
  const made = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
    name: 'signals',
    target: { kind: 'webhook', url: receiver.url, format: 'secevent', ...(events && { events }) },
  });
  expect(made.status).toBe(201);
  const body = (await made.json()) as { sink_id: string; secret: string };
  streamId = body.sink_id;
  return { receiver, streamId, secret: body.secret };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** p50, p99 and max of `latencies` (ms), logged and, with SIGNAL_LATENCY_FILE, written out. */
async function report(name: string, latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const figures = {
    name,
    revocations: sorted.length,
    p50_ms: Math.round(percentile(sorted, 50)),
    p99_ms: Math.round(percentile(sorted, 99)),
    max_ms: Math.round(sorted.at(-1)!),
  };
  console.log(`signal latency: ${JSON.stringify(figures)}`);
  if (process.env.SIGNAL_LATENCY_FILE) {
    await appendFile(process.env.SIGNAL_LATENCY_FILE, `${JSON.stringify(figures)}\n`);
  }
  return figures;
}

/** A resource server's kit for the space's own issuer, its revocation list polled every `poll` s. */
function kit(poll: number, signals?: { streamId: string; secret: string }) {
  return createVerifier({
    issuer: `${service.config.TOKEN_ISSUER}/spaces/${SPACE}`,
    serviceUrl: service.baseUrl,
    audience: 'storefront.test',
    kinds: ['private'],
    statusLists: false,
    revocationRefreshSeconds: poll,
    revocationMaxStaleSeconds: Math.max(60, poll * 2),
    ...(signals ? { signals: { space: SPACE, ...signals } } : {}),
    // The kit reads the issuer's JWKS at the issuer's URL: here, the test service.
    fetch: (input, init) =>
      fetch(String(input).replace(service.config.TOKEN_ISSUER, service.baseUrl), init),
  });
}

const bearer = (token: string) => ({
  method: 'GET',
  url: 'https://storefront.example/cart',
  header: (name: string) => (name === 'authorization' ? `Bearer ${token}` : undefined),
});

describe('a Shared Signals stream (SSF 1.0, RFC 8935 push)', () => {
  afterAll(() => undefined);

  it("publishes the space's SSF metadata; a space without keys of its own has none and may not make a stream", async () => {
    const metadata = await fetch(
      `${service.baseUrl}/.well-known/ssf-configuration/spaces/${SPACE}`,
    );
    expect(metadata.status).toBe(200);
    const issuer = `${service.config.TOKEN_ISSUER}/spaces/${SPACE}`;
    expect(await metadata.json()).toEqual({
      spec_version: '1_0',
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      delivery_methods_supported: ['urn:ietf:rfc:8935', 'urn:ietf:rfc:8936'],
      // Receivers manage their own streams there (SSF 1.0 §8), with an OAuth or DPoP token.
      configuration_endpoint: `${service.config.TOKEN_ISSUER}/v1/ssf/stream`,
      status_endpoint: `${service.config.TOKEN_ISSUER}/v1/ssf/status`,
      verification_endpoint: `${service.config.TOKEN_ISSUER}/v1/ssf/verify`,
      authorization_schemes: [{ spec_urn: 'urn:ietf:rfc:6749' }, { spec_urn: 'urn:ietf:rfc:9449' }],
      default_subjects: 'ALL',
    });
    const shared = 'space-signals-shared';
    expect(
      (await fetch(`${service.baseUrl}/.well-known/ssf-configuration/spaces/${shared}`)).status,
    ).toBe(404);
    const refused = await adminCall(service, shared, 'POST', '/v1/sinks', {
      name: 'signals',
      target: { kind: 'webhook', url: 'http://127.0.0.1:9/push', format: 'secevent' },
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('POST /v1/space/signing-keys');
    const stray = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
      name: 'audit',
      target: { kind: 'webhook', url: 'http://127.0.0.1:9/push', events: [REVOKED] },
    });
    expect(stray.status).toBe(400);
  });

  it('pushes session-revoked for each revoked token, verified, in order, each within the measured time', async () => {
    const { receiver, secret } = await stream();
    const credential = await createCredentialVia(service, SPACE, 'storefront');
    const latencies: number[] = [];
    const jtis: string[] = [];
    for (let i = 0; i < 40; i++) {
      const token = await privateTokenVia(service, credential);
      const { jti } = decodeJwt(token);
      jtis.push(jti!);
      const revoked = await service.post('/v1/revoke', { ...credential, token });
      const answered = performance.now();
      expect(revoked.status).toBe(200);
      const [got] = await waitUntil(
        () => receiver.ofType(REVOKED).filter((set) => set.claims.sub_id?.id === jti),
        (sets) => sets.length > 0,
        { timeoutMs: 15_000, intervalMs: 5 },
      );
      latencies.push(got!.at - answered);
    }
    const sets = receiver.ofType(REVOKED);
    expect(receiver.refused).toEqual([]);
    expect(sets.map((set) => set.claims.sub_id)).toEqual(
      jtis.map((id) => ({ format: 'opaque', id })),
    );
    expect(sets.every((set) => set.authorization === `Bearer ${secret}`)).toBe(true);
    expect(sets.every((set) => set.contentType === 'application/secevent+jwt')).toBe(true);
    expect(sets.every((set) => set.claims.exp === undefined && set.claims.sub === undefined)).toBe(
      true,
    );
    expect((await report('revocation to SET at a receiver', latencies)).revocations).toBe(40);
  }, 120_000);

  it('puts a revocation in force at a kit fed by the stream before its poll, and measures both', async () => {
    // The kit is made once the stream is, with its id and secret: pushes wait for it until then.
    const receiving: { handler?: ReturnType<typeof nodeSignalHandler> } = {};
    const server = http.createServer((request, response) => {
      if (receiving.handler) void receiving.handler(request, response);
      else response.writeHead(503).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    afterFile(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const made = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
      name: 'kit',
      target: {
        kind: 'webhook',
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ssf`,
        format: 'secevent',
        events: [REVOKED],
      },
    });
    const { sink_id: streamId, secret } = (await made.json()) as {
      sink_id: string;
      secret: string;
    };
    const pushed = kit(3600, { streamId, secret });
    receiving.handler = nodeSignalHandler(pushed);
    const polled = kit(10);
    const credential = await createCredentialVia(service, SPACE, 'kit-fed');
    // One token per revocation, each accepted by both kits first.
    const tokens = await Promise.all(
      Array.from({ length: 12 }, () => privateTokenVia(service, credential)),
    );
    for (const token of tokens) {
      await pushed.verify(bearer(token));
      await polled.verify(bearer(token));
    }
    const refusedBy = async (verifier: typeof pushed, token: string, since: number) => {
      await waitUntil(
        () =>
          verifier.verify(bearer(token)).then(
            () => false,
            () => true,
          ),
        Boolean,
        { timeoutMs: 30_000, intervalMs: 5 },
      );
      return performance.now() - since;
    };
    // Revoked a second apart, each watched by both kits: the poll's wait varies with its phase.
    const watched = tokens.map(async (token, i) => {
      await new Promise((resolve) => setTimeout(resolve, i * 1000));
      expect((await service.post('/v1/revoke', { ...credential, token })).status).toBe(200);
      const since = performance.now();
      return Promise.all([refusedBy(pushed, token, since), refusedBy(polled, token, since)]);
    });
    const latencies = await Promise.all(watched);
    const push = await report(
      'revocation to refusal, pushed',
      latencies.map(([p]) => p),
    );
    const poll = await report(
      'revocation to refusal, polled',
      latencies.map(([, p]) => p),
    );
    expect([push.revocations, poll.revocations]).toEqual([12, 12]);
  }, 120_000);

  it('sends a stream only what it asked for: credential-change when a credential is revoked', async () => {
    const { receiver } = await stream([CHANGED]);
    const credential = await createCredentialVia(service, SPACE, 'doomed');
    const token = await privateTokenVia(service, credential);
    expect((await service.post('/v1/revoke', { ...credential, token })).status).toBe(200);
    const gone = await adminCall(
      service,
      SPACE,
      'DELETE',
      `/v1/credential/${credential.client_id}`,
    );
    expect(gone.status).toBe(200);
    const [set] = await waitUntil(
      () => receiver.ofType(CHANGED).filter((s) => s.claims.sub_id?.id === credential.client_id),
      (sets) => sets.length > 0,
      { timeoutMs: 15_000 },
    );
    expect(set!.claims.events?.[CHANGED]).toMatchObject({
      credential_type: 'client_credential',
      change_type: 'revoke',
    });
    // The token revoked before it was not this stream's to hear.
    expect(receiver.ofType(REVOKED)).toEqual([]);
  }, 60_000);

  it('logs what each receiver took: a signals-delivered event after the revocation, naming the SET and its event (issue 65, item 4)', async () => {
    const { receiver, streamId } = await stream([REVOKED]);
    const credential = await createCredentialVia(service, SPACE, 'proven');
    const token = await privateTokenVia(service, credential);
    const { jti } = decodeJwt(token);
    expect((await service.post('/v1/revoke', { ...credential, token })).status).toBe(200);
    const [set] = await waitUntil(
      () => receiver.ofType(REVOKED).filter((s) => s.claims.sub_id?.id === jti),
      (sets) => sets.length > 0,
      { timeoutMs: 15_000 },
    );
    const {
      rows: [revoked],
    } = await sql<{ event_id: string; recorded_at: Date }>`
      SELECT event_id, recorded_at FROM events
      WHERE event_type = 'token-revoked' AND data->>'jti' = ${jti}`.execute(service.database.db);
    type Delivery = {
      data: { sink_id: string; method: string; sets: { jti: string; event_id: string }[] };
      metadata: { actor: string };
      recorded_at: Date;
      space_id: string;
    };
    const [delivery] = await waitUntil(
      async () =>
        (
          await sql<Delivery>`SELECT data, metadata, recorded_at, space_id FROM events
            WHERE event_type = 'signals-delivered' AND data->>'sink_id' = ${streamId}`.execute(
            service.database.db,
          )
        ).rows,
      (rows) => rows.length > 0,
      { timeoutMs: 10_000 },
    );
    expect(delivery!.space_id).toBe(SPACE);
    expect(delivery!.data).toMatchObject({ sink_id: streamId, method: 'push' });
    expect(delivery!.data.sets).toContainEqual({
      jti: set!.claims.jti,
      event_id: revoked!.event_id,
    });
    expect(delivery!.metadata.actor).toMatch(/^deliverer:/);
    // Told by then: the delivery is recorded after the revocation, once the receiver answered.
    expect(delivery!.recorded_at.getTime()).toBeGreaterThanOrEqual(revoked!.recorded_at.getTime());
    // Its own record gives no SET and so no further record: nothing loops on it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const { rows: counted } = await sql<{ count: number }>`
      SELECT count(*)::int AS count FROM events
      WHERE event_type = 'signals-delivered' AND data->>'sink_id' = ${streamId}`.execute(
      service.database.db,
    );
    expect(counted).toEqual([{ count: 1 }]);
  }, 60_000);

  it('sends RISC credential-compromise when an admin revokes a credential as compromised, and only then', async () => {
    const { receiver } = await stream([COMPROMISED]);
    const leaked = await createCredentialVia(service, SPACE, 'leaked');
    const retired = await createCredentialVia(service, SPACE, 'retired');
    const revoke = (clientId: string, body: object) =>
      adminCall(service, SPACE, 'DELETE', `/v1/credential/${clientId}`, body);
    expect((await revoke(retired.client_id, { reason: 'no longer used' })).status).toBe(200);
    expect((await revoke(leaked.client_id, { reason: 'leaked', compromised: true })).status).toBe(
      200,
    );
    const [set] = await waitUntil(
      () => receiver.ofType(COMPROMISED),
      (sets) => sets.length > 0,
      { timeoutMs: 15_000 },
    );
    expect(set!.claims.sub_id).toEqual({ format: 'opaque', id: leaked.client_id });
    expect(set!.claims.events?.[COMPROMISED]).toEqual({
      credential_type: 'client_credential',
      event_timestamp: expect.any(Number),
    });
    // The plain revocation before it was no compromise: one SET, and nothing refused.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.ofType(COMPROMISED)).toHaveLength(1);
    expect(receiver.refused).toEqual([]);
  }, 60_000);
});
