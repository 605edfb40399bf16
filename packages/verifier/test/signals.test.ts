import { describe, expect, it } from 'vitest';
import { signalResponse, type SignalRefused } from '../src/index.js';
import {
  ISSUER,
  issuerFetch,
  privateToken,
  refusal,
  request,
  signedJwt,
  stubVerifier,
} from './support/stub-issuer.js';

const SPACE_ISSUER = `${ISSUER}/spaces/space-kit`;
const STREAM = 'snk_stream';
const SECRET = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ=';
const REVOKED = 'https://schemas.openid.net/secevent/caep/event-type/session-revoked';
const CHANGED = 'https://schemas.openid.net/secevent/caep/event-type/credential-change';

/** The stub issuer, its space's own JWKS the same key; the list polled once an hour. */
function receiving() {
  let polls = 0;
  const verifier = stubVerifier({
    kinds: ['private'],
    statusLists: false,
    revocationRefreshSeconds: 3600,
    signals: { space: 'space-kit', streamId: STREAM, secret: SECRET },
    fetch: (input, init) => {
      const url = String(input);
      if (url.includes('/v1/revocations')) polls += 1;
      return issuerFetch(
        url === `${SPACE_ISSUER}/.well-known/jwks.json` ? `${ISSUER}/.well-known/jwks.json` : url,
        init,
      );
    },
  });
  return { verifier, polls: () => polls };
}

const set = (event: string, id: string, extra: Record<string, unknown> = {}) =>
  signedJwt({
    iss: SPACE_ISSUER,
    aud: STREAM,
    jti: crypto.randomUUID(),
    iat: Math.floor(Date.now() / 1000),
    sub_id: { format: 'opaque', id },
    events: { [event]: { event_timestamp: Math.floor(Date.now() / 1000) } },
    ...extra,
  });

const push = (body: string, headers: Record<string, string> = {}) =>
  new Request('https://storefront.example/ssf', {
    method: 'POST',
    headers: {
      'content-type': 'application/secevent+jwt',
      authorization: `Bearer ${SECRET}`,
      ...headers,
    },
    body,
  });

describe('the kit takes pushed SETs (issue 65, item 3)', () => {
  it('given session-revoked for a token it accepted: refused at once, the hourly poll not waited for', async () => {
    const { verifier, polls } = receiving();
    const token = await privateToken();
    await verifier.verify(request(`Bearer ${token}`));
    const { jti } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const answer = await signalResponse(verifier, push(await set(REVOKED, jti)));
    expect(answer.status).toBe(202);
    expect(await answer.text()).toBe('');
    expect((await refusal(verifier.verify(request(`Bearer ${token}`)))).status).toBe(401);
    expect(polls()).toBe(1);
  });

  it('given credential-change revoke: every token of that client refused', async () => {
    const { verifier } = receiving();
    const token = await privateToken();
    await verifier.verify(request(`Bearer ${token}`));
    const revoke = await set(CHANGED, 'ci_storefront', {
      events: { [CHANGED]: { credential_type: 'client_credential', change_type: 'revoke' } },
    });
    expect((await signalResponse(verifier, push(revoke))).status).toBe(202);
    expect((await refusal(verifier.verify(request(`Bearer ${token}`)))).status).toBe(401);
  });

  it('given a revocation heard while a list read before it was in flight: the list read keeps it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const token = await privateToken();
    const { jti } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    const verifier = stubVerifier({
      kinds: ['private'],
      statusLists: false,
      signals: { space: 'space-kit', streamId: STREAM, secret: SECRET },
      fetch: async (input, init) => {
        const url = String(input);
        if (url.includes('/v1/revocations')) await gate;
        return issuerFetch(url.replace('/spaces/space-kit/.well-known', '/.well-known'), init);
      },
    });
    const first = verifier.verify(request(`Bearer ${token}`));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await signalResponse(verifier, push(await set(REVOKED, jti)))).status).toBe(202);
    release();
    await first.catch(() => undefined);
    expect((await refusal(verifier.verify(request(`Bearer ${token}`)))).status).toBe(401);
  });

  it('given lists read after the SET that do not hold it yet (a cache): the revocation stays', async () => {
    const verifier = stubVerifier({
      kinds: ['private'],
      statusLists: false,
      // Read at every request; the stub's list is always the one from before the revocation.
      revocationRefreshSeconds: 0,
      signals: { space: 'space-kit', streamId: STREAM, secret: SECRET },
      fetch: (input, init) =>
        issuerFetch(String(input).replace('/spaces/space-kit/.well-known', '/.well-known'), init),
    });
    const token = await privateToken();
    await verifier.verify(request(`Bearer ${token}`));
    const { jti } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect((await signalResponse(verifier, push(await set(REVOKED, jti)))).status).toBe(202);
    for (let i = 0; i < 3; i++) {
      expect((await refusal(verifier.verify(request(`Bearer ${token}`)))).status).toBe(401);
    }
  });

  it.each([
    ['another Authorization', { authorization: 'Bearer nope' }, 'authentication_failed'],
    ['another Content-Type', { 'content-type': 'application/jwt' }, 'invalid_request'],
  ])('given %s: 400 with its err, nothing heard', async (_, headers, err) => {
    const { verifier } = receiving();
    const answer = await signalResponse(verifier, push(await set(REVOKED, 'x'), headers));
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-language')).toBe('en');
    expect(await answer.json()).toMatchObject({ err });
  });

  it('refuses a SET for another stream, from another issuer, an access token, or one with exp', async () => {
    const { verifier } = receiving();
    const refusedWith = async (body: string) =>
      (await verifier
        .receiveSignal({
          contentType: 'application/secevent+jwt',
          authorization: `Bearer ${SECRET}`,
          body,
        })
        .then(
          () => 'taken',
          (error: SignalRefused) => error.err,
        )) as string;
    expect(await refusedWith(await set(REVOKED, 'x', { aud: 'snk_other' }))).toBe(
      'invalid_audience',
    );
    expect(await refusedWith(await set(REVOKED, 'x', { iss: ISSUER }))).toBe('invalid_issuer');
    expect(await refusedWith(await privateToken())).toBe('invalid_key');
    expect(await refusedWith(await set(REVOKED, 'x', { exp: 4102444800 }))).toBe('invalid_request');
    expect(await refusedWith('a'.repeat(70_000))).toBe('invalid_request');
  });

  it('answers 400 when no stream is configured', async () => {
    const answer = await signalResponse(stubVerifier(), push(await set(REVOKED, 'x')));
    expect(answer.status).toBe(400);
  });
});
