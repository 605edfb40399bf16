import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNAL_TYPES, VERIFICATION_URI } from '../../../src/domain/security-signals.js';
import { startSignalDeliverer } from '../../support/signal-deliverer.js';
import { startSetReceiver } from '../../support/set-receiver.js';
import {
  adminCall,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';
import { loadKeyEncryptionKey } from '../../../src/crypto/key-files.js';
import { loadSinks } from '../../../src/delivery/sinks.js';
import { withdrawnReceivers } from '../../../src/delivery/receiver-standing.js';

/**
 * Issue 65, item 2: a receiver manages its own Shared Signals stream (OpenID SSF 1.0 §8) with a
 * private token for the stream-management audience carrying `ssf:streams`, found through the
 * space's SSF metadata; another receiver, another space and a Storefront token cannot touch it.
 */
const SPACE = 'space-receivers';
const OTHER = 'space-receivers-other';
const REVOKED = SIGNAL_TYPES['session-revoked'];
const PUSH = 'urn:ietf:rfc:8935';
let service: TestService;
let storefront: { client_id: string; client_secret: string };
let ssf: string;

beforeAll(async () => {
  service = await startTestService();
  await startSignalDeliverer(service, [SPACE, OTHER]);
  storefront = await createCredentialVia(service, SPACE, 'storefront');
  ssf = `${service.config.TOKEN_ISSUER}/v1/ssf`;
});

/** A receiver in `space`: its credential, granted `ssf:streams` by an admin, and a token. */
async function receiver(space = SPACE, scopes = ['ssf:streams']) {
  const made = await adminCall(service, space, 'POST', '/v1/credential', {
    name: 'ssf receiver',
    description: 'a Shared Signals receiver',
    scopes,
  });
  expect(made.status, await made.clone().text()).toBe(201);
  const credential = (await made.json()) as { client_id: string; client_secret: string };
  const response = await service.post('/v1/credential/token', {
    ...credential,
    grant_type: 'client_credentials',
    audience: ssf,
    ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  const { access_token: token } = (await response.json()) as { access_token: string };
  const call = async (method: string, path: string, body?: object) => {
    const answer = await fetch(`${service.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await answer.text();
    return { status: answer.status, headers: answer.headers, body: text ? JSON.parse(text) : {} };
  };
  return { credential, token, call };
}

/** Revokes a new storefront token of SPACE; its jti. */
async function revoke(): Promise<string> {
  const token = await privateTokenVia(service, storefront);
  expect((await service.post('/v1/revoke', { ...storefront, token })).status).toBe(200);
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).jti as string;
}

describe('a receiver-managed Shared Signals stream (SSF 1.0 §8)', () => {
  it("is found in the metadata, pushed with the receiver's own header, verified with its state echoed, one a minute", async () => {
    const metadata = await (
      await fetch(`${service.baseUrl}/.well-known/ssf-configuration/spaces/${SPACE}`)
    ).json();
    expect(metadata).toMatchObject({
      configuration_endpoint: `${ssf}/stream`,
      status_endpoint: `${ssf}/status`,
      verification_endpoint: `${ssf}/verify`,
    });
    const issuer = `${service.config.TOKEN_ISSUER}/spaces/${SPACE}`;
    let streamId = '';
    const sets = await startSetReceiver({
      issuer,
      // The metadata names TOKEN_ISSUER's host; the test reaches the service at its own.
      jwksUri: metadata.jwks_uri.replace(service.config.TOKEN_ISSUER, service.baseUrl),
      audience: () => streamId,
    });
    afterAll(() => sets.close());
    const { call } = await receiver();
    const made = await call('POST', '/v1/ssf/stream', {
      delivery: { method: PUSH, endpoint_url: sets.url, authorization_header: 'Bearer rcv-own' },
      events_requested: [REVOKED, 'https://example.com/not-a-signal-we-send'],
      description: 'risk engine',
    });
    expect(made.status).toBe(201);
    streamId = made.body.stream_id;
    expect(made.body).toEqual({
      stream_id: streamId,
      iss: issuer,
      aud: streamId,
      delivery: { method: PUSH, endpoint_url: sets.url },
      events_supported: Object.values(SIGNAL_TYPES),
      events_requested: [REVOKED],
      events_delivered: [REVOKED],
      description: 'risk engine',
      min_verification_interval: 60,
    });
    expect((await call('POST', '/v1/ssf/stream', {})).status).toBe(409);

    expect(
      (await call('POST', '/v1/ssf/verify', { stream_id: streamId, state: 's-1' })).status,
    ).toBe(204);
    const again = await call('POST', '/v1/ssf/verify', { stream_id: streamId });
    expect(again.status).toBe(429);
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThan(0);
    const jti = await revoke();
    await waitUntil(() => sets.ofType(REVOKED).length === 1);
    const [verification] = sets.ofType(VERIFICATION_URI);
    expect(verification!.claims.events![VERIFICATION_URI]).toMatchObject({ state: 's-1' });
    expect(verification!.claims.sub_id).toEqual({ format: 'opaque', id: streamId });
    expect(sets.ofType(REVOKED)[0]!.claims.sub_id!.id).toBe(jti);
    expect(sets.received.every((set) => set.authorization === 'Bearer rcv-own')).toBe(true);
    expect(sets.refused).toEqual([]);
  });

  it("reads, changes, replaces and deletes by §8.1.1, and polls with the receiver's token", async () => {
    const { call } = await receiver();
    const made = await call('POST', '/v1/ssf/stream', { events_requested: [REVOKED] });
    expect(made.status).toBe(201);
    const id = made.body.stream_id as string;
    expect(made.body.delivery).toEqual({
      method: 'urn:ietf:rfc:8936',
      endpoint_url: `${service.config.TOKEN_ISSUER}/v1/ssf/streams/${id}/poll`,
    });
    expect((await call('GET', `/v1/ssf/stream?stream_id=${id}`)).body).toEqual(made.body);
    expect((await call('GET', '/v1/ssf/stream')).body).toEqual([made.body]);

    const patched = await call('PATCH', '/v1/ssf/stream', { stream_id: id, description: 'soc' });
    expect(patched.body).toEqual({ ...made.body, description: 'soc' });
    const forged = await call('PATCH', '/v1/ssf/stream', { stream_id: id, iss: 'https://evil' });
    expect(forged.status).toBe(400);
    expect(forged.body.detail).toMatch(/iss/);
    const replaced = await call('PUT', '/v1/ssf/stream', { stream_id: id });
    expect(replaced.body.events_delivered).toEqual([]);
    expect(replaced.body.description).toBeUndefined();

    const jti = await revoke();
    const polled = await call('POST', `/v1/ssf/streams/${id}/poll`, { maxEvents: 10 });
    expect(polled.status).toBe(200);
    // It asks for nothing now: the revocation is not its to hear.
    expect(JSON.stringify(polled.body.sets)).not.toContain(jti);
    await call('PATCH', '/v1/ssf/stream', { stream_id: id, events_requested: [REVOKED] });
    await revoke();
    const heard = await call('POST', `/v1/ssf/streams/${id}/poll`, { maxEvents: 10 });
    expect(Object.keys(heard.body.sets)).toHaveLength(1);

    expect((await call('DELETE', `/v1/ssf/stream?stream_id=${id}`)).status).toBe(204);
    expect((await call('GET', `/v1/ssf/stream?stream_id=${id}`)).status).toBe(404);
    expect((await call('DELETE', `/v1/ssf/stream?stream_id=${id}`)).status).toBe(404);
    expect((await call('GET', '/v1/ssf/stream')).body).toEqual([]);
  });

  it("pauses and enables; an admin's pause is the admin's to lift", async () => {
    const { call } = await receiver();
    const id = (await call('POST', '/v1/ssf/stream', {})).body.stream_id as string;
    const paused = await call('POST', '/v1/ssf/status', { stream_id: id, status: 'paused' });
    expect(paused.body).toEqual({ stream_id: id, status: 'paused' });
    expect((await call('POST', `/v1/ssf/streams/${id}/poll`, {})).body.sets).toEqual({});
    expect(
      (await call('POST', '/v1/ssf/status', { stream_id: id, status: 'enabled' })).body,
    ).toEqual({
      stream_id: id,
      status: 'enabled',
    });
    expect(
      (await call('POST', '/v1/ssf/status', { stream_id: id, status: 'disabled' })).status,
    ).toBe(400);
    expect((await adminCall(service, SPACE, 'POST', `/v1/sinks/${id}/pause`)).status).toBe(200);
    expect((await call('GET', `/v1/ssf/status?stream_id=${id}`)).body.reason).toMatch(
      /administrator/,
    );
    expect(
      (await call('POST', '/v1/ssf/status', { stream_id: id, status: 'enabled' })).status,
    ).toBe(403);
    // Nor is it lifted by deleting the stream and making another.
    expect((await call('DELETE', `/v1/ssf/stream?stream_id=${id}`)).status).toBe(403);
    // An admin's pause over the receiver's own is the admin's too.
    expect((await adminCall(service, SPACE, 'POST', `/v1/sinks/${id}/resume`)).status).toBe(200);
    await call('POST', '/v1/ssf/status', { stream_id: id, status: 'paused' });
    expect((await adminCall(service, SPACE, 'POST', `/v1/sinks/${id}/pause`)).status).toBe(200);
    const enable = { stream_id: id, status: 'enabled' };
    expect((await call('POST', '/v1/ssf/status', enable)).status).toBe(403);
    expect((await call('DELETE', `/v1/ssf/stream?stream_id=${id}`)).status).toBe(403);
    // An admin may not point it elsewhere either: that is its receiver's to say.
    const moved = await adminCall(service, SPACE, 'PATCH', `/v1/sinks/${id}`, {
      target: { kind: 'webhook', url: 'https://elsewhere.example/ssf', format: 'secevent' },
    });
    expect(moved.status).toBe(400);
  });

  it("answers none to another receiver, another space and an admin's stream; refuses other tokens", async () => {
    const owner = await receiver();
    const id = (await owner.call('POST', '/v1/ssf/stream', {})).body.stream_id as string;
    const admins = await adminCall(service, SPACE, 'POST', '/v1/sinks', {
      name: 'admin stream',
      target: { kind: 'poll' },
    });
    const adminStream = ((await admins.json()) as { sink_id: string }).sink_id;
    for (const stranger of [await receiver(), await receiver(OTHER)]) {
      for (const target of [id, adminStream]) {
        expect((await stranger.call('GET', `/v1/ssf/stream?stream_id=${target}`)).status).toBe(404);
        expect((await stranger.call('DELETE', `/v1/ssf/stream?stream_id=${target}`)).status).toBe(
          404,
        );
        expect((await stranger.call('POST', '/v1/ssf/verify', { stream_id: target })).status).toBe(
          404,
        );
        expect((await stranger.call('POST', `/v1/ssf/streams/${target}/poll`, {})).status).toBe(
          401,
        );
      }
    }
    // Introspected by its own client alone: no Storefront resource server is told it is active.
    const introspected = async (by: { client_id: string; client_secret: string }) =>
      (await (await service.post('/v1/introspect', { ...by, token: owner.token })).json()).active;
    expect(await introspected(storefront)).toBe(false);
    expect(await introspected(owner.credential)).toBe(true);
    // A Storefront token, a token without the scope, a revoked one.
    const plain = await privateTokenVia(service, storefront);
    const asStorefront = await fetch(`${service.baseUrl}/v1/ssf/stream`, {
      headers: { authorization: `Bearer ${plain}` },
    });
    expect(asStorefront.status).toBe(401);
    const unscoped = await receiver(SPACE, []);
    expect((await unscoped.call('GET', '/v1/ssf/stream')).status).toBe(403);
    expect(
      (await service.post('/v1/revoke', { ...owner.credential, token: owner.token })).status,
    ).toBe(200);
    expect((await owner.call('GET', '/v1/ssf/stream')).status).toBe(401);
    // A management token buys nothing at the Storefront's doors.
    const bought = await service.post(
      '/v1/issue',
      { customer_id: 'c', segment_id: 's' },
      {
        authorization: `Bearer ${(await receiver()).token}`,
        'x-service-space-id': SPACE,
      },
    );
    expect(bought.status).toBe(401);
  });

  it('stops pushing to a receiver revoked or narrowed: its stream waits, cursor kept', async () => {
    const { credential, call } = await receiver();
    const made = await call('POST', '/v1/ssf/stream', {
      delivery: { method: PUSH, endpoint_url: 'https://rp.example/ssf' },
    });
    const id = made.body.stream_id as string;
    const kek = await loadKeyEncryptionKey(
      service.config.SIGNING_KEY_ENCRYPTION_KEY,
      service.config.DATA_DIR,
    );
    const withdrawn = async () =>
      withdrawnReceivers(service.database.db, await loadSinks(service.database.db, kek));
    expect((await withdrawn()).has(id)).toBe(false);
    const path = `/v1/credential/${credential.client_id}`;
    const narrowed = await adminCall(service, SPACE, 'PATCH', path, { scopes: [] });
    expect(narrowed.status).toBe(200);
    await waitUntil(async () => (await withdrawn()).has(id));
    expect((await call('GET', '/v1/ssf/stream')).status).toBe(401);
  });

  it('keeps the verification limit across a delete and a new stream', async () => {
    const { call } = await receiver();
    const first = (await call('POST', '/v1/ssf/stream', {})).body.stream_id as string;
    expect((await call('POST', '/v1/ssf/verify', { stream_id: first })).status).toBe(204);
    expect((await call('DELETE', `/v1/ssf/stream?stream_id=${first}`)).status).toBe(204);
    const second = (await call('POST', '/v1/ssf/stream', {})).body.stream_id as string;
    expect((await call('POST', '/v1/ssf/verify', { stream_id: second })).status).toBe(429);
  });
});
