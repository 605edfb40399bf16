import { describe, expect, it } from 'vitest';
import { s256 } from '#oauth-authorize/pkce.js';
import { newSecret } from '#oauth-authorize/secrets.js';
import {
  decideAccept,
  decideCode,
  decideReject,
  evolveAuthorization,
  type AuthorizationRequestState,
} from '../../../src/domain/authorization/decide.js';
import {
  decideRedeem,
  decideRefresh,
  decideRevokeConsent,
  decideUndoRefresh,
} from '../../../src/domain/authorization/consent.js';
import { metadata } from '../../support/given.js';

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const browser = newSecret();
const resume = newSecret();
const code = newSecret();
const AGENT = 'https://agents.example/a.json';

/** Given: a request of space-a asked at 1000, ending at 1600, then `events` on it. */
function given(...events: Array<{ type: string; data: unknown }>): AuthorizationRequestState {
  const asked = {
    type: 'authorization-requested',
    data: {
      request_id: 'ar_1',
      client_id: AGENT,
      redirect_uri: 'http://127.0.0.1:5000/cb',
      code_challenge: s256(VERIFIER),
      scopes: ['products:read', 'cart:write'],
      browser: browser.digest,
      expires_at: 1600,
    },
  };
  return [asked, ...events].reduce<AuthorizationRequestState | undefined>(
    (state, event) => evolveAuthorization(state, { ...event, spaceId: 'space-a' } as never),
    undefined,
  )!;
}

const step = { requestId: 'ar_1', spaceId: 'space-a', now: 1100, eventId: 'e-1', metadata };
const storefront = {
  clientId: 'storefront',
  jti: 'pt-1',
  audience: 'storefront.test',
  scopes: ['products:read', 'cart:write'],
};
const consent = {
  customerId: 'c-1',
  segmentId: 'vip',
  scopes: ['products:read'],
  storefront,
  resource: 'storefront.test',
  resume: resume.digest,
  consentSeconds: 86_400,
};
const accepted = {
  type: 'authorization-accepted',
  data: { request_id: 'ar_1', resume: resume.digest, expires_at: 5000, scopes: ['products:read'] },
};
const coded = {
  type: 'authorization-code-issued',
  data: { request_id: 'ar_1', code: code.digest, expires_at: 1160 },
};
const redeem = {
  requestId: 'ar_1',
  now: 1120,
  eventId: 'e-9',
  metadata,
  secret: code.secret,
  clientId: AGENT,
  redirectUri: 'http://127.0.0.1:5000/cb',
  verifier: VERIFIER,
  refresh: newSecret().digest,
  jkt: undefined,
  otherResource: false,
};

describe('an authorization request', () => {
  it('when the storefront grants some of what was asked, then it is accepted for that customer', () => {
    const decision = decideAccept({ ...step, ...consent }, given());
    expect(decision.ok && decision.events[0]).toMatchObject({
      type: 'authorization-accepted',
      data: { customer_id: 'c-1', scopes: ['products:read'], accepted_by: 'storefront' },
    });
    // The consent ends when the storefront said: its refresh tokens with it.
    expect(decision.ok && decision.events[0]!.data).toMatchObject({ expires_at: 1100 + 86_400 });
  });

  it('when the grant is wider than asked, in another space, late or decided before, then it is refused', () => {
    const wider = { ...step, ...consent, scopes: ['orders:read'] };
    expect(decideAccept(wider, given())).toMatchObject({ ok: false, refusal: 'widened' });
    const details = { ...step, ...consent, authorizationDetails: [{ type: 'x' }] };
    expect(decideAccept(details, given())).toMatchObject({ refusal: 'widened' });
    const foreign = { ...step, ...consent, spaceId: 'space-b' };
    expect(decideAccept(foreign, given())).toMatchObject({ refusal: 'not_found' });
    expect(decideAccept({ ...step, ...consent, now: 1600 }, given())).toMatchObject({
      refusal: 'expired',
    });
    expect(decideAccept({ ...step, ...consent }, given(accepted))).toMatchObject({
      refusal: 'decided',
    });
    expect(decideReject({ ...step, storefront }, given(accepted))).toMatchObject({
      refusal: 'decided',
    });
    expect(decideAccept({ ...step, ...consent }, undefined)).toMatchObject({
      refusal: 'not_found',
    });
  });

  it("when the grant is beyond the storefront's token, for another audience, or by an agent, then it is refused", () => {
    const narrowToken = { ...storefront, scopes: ['cart:write'] };
    expect(decideAccept({ ...step, ...consent, storefront: narrowToken }, given())).toMatchObject({
      refusal: 'widened',
    });
    const otherAudience = { ...step, ...consent, resource: 'https://other.test/api' };
    expect(decideAccept(otherAudience, given())).toMatchObject({ refusal: 'other_resource' });
    const agent = { ...storefront, clientId: 'https://agents.example/a.json' };
    expect(decideAccept({ ...step, ...consent, storefront: agent }, given())).toMatchObject({
      refusal: 'not_storefront',
    });
    expect(decideReject({ ...step, storefront: agent }, given())).toMatchObject({
      refusal: 'not_storefront',
    });
  });

  it('when the storefront rejects a pending request, then it is rejected', () => {
    const decision = decideReject({ ...step, storefront, description: 'no' }, given());
    expect(decision.ok && decision.events[0]!.type).toBe('authorization-rejected');
  });

  it('when the browser that asked comes back after the consent, then it gets a code, ending in time', () => {
    const command = {
      ...step,
      browser: browser.secret,
      resume: resume.secret,
      code: code.digest,
      codeTtl: 60,
    };
    const decision = decideCode(command, given(accepted));
    expect(decision.ok && decision.events[0]!.data).toMatchObject({ expires_at: 1160 });
    // Never past the request's own end.
    const late = decideCode({ ...command, now: 1590 }, given(accepted));
    expect(late.ok && late.events[0]!.data).toMatchObject({ expires_at: 1600 });
  });

  it('when another browser comes back, or before the consent, then no code', () => {
    const command = {
      ...step,
      browser: newSecret().secret,
      resume: resume.secret,
      code: code.digest,
      codeTtl: 60,
    };
    expect(decideCode(command, given(accepted))).toMatchObject({ refusal: 'other_browser' });
    const early = { ...command, browser: browser.secret };
    expect(decideCode(early, given())).toMatchObject({ refusal: 'not_accepted' });
    // The browser that asked, without the secret the consent sent back: no code.
    const unconsented = { ...early, resume: newSecret().secret };
    expect(decideCode(unconsented, given(accepted))).toMatchObject({ refusal: 'other_browser' });
    expect(decideCode(early, given({ type: 'authorization-rejected', data: {} }))).toMatchObject({
      refusal: 'not_accepted',
    });
  });

  it('when the client redeems its code with its verifier, then it is redeemed once', () => {
    const decision = decideRedeem(redeem, given(accepted, coded));
    expect(decision.ok && decision.events[0]!.type).toBe('authorization-code-redeemed');
    // Without redirect_uri, PKCE alone binds the code to its request.
    expect(decideRedeem({ ...redeem, redirectUri: undefined }, given(accepted, coded)).ok).toBe(
      true,
    );
  });

  it('when the code is wrong, late, another client’s, another redirect’s or verifier’s, then nothing', () => {
    const state = given(accepted, coded);
    for (const wrong of [
      { secret: newSecret().secret },
      { now: 1160 },
      { clientId: 'https://agents.example/b.json' },
      { redirectUri: 'http://127.0.0.1:5000/other' },
      { verifier: VERIFIER.replace('d', 'e') },
    ]) {
      const decision = decideRedeem({ ...redeem, ...wrong }, state);
      expect(decision, JSON.stringify(wrong)).toMatchObject({ ok: false, refusal: 'bad_code' });
      expect(decision.events).toEqual([]);
    }
  });

  it('when a redeemed code comes again, then it is refused and the replay recorded', () => {
    const redeemed = { type: 'authorization-code-redeemed', data: { request_id: 'ar_1' } };
    const decision = decideRedeem(redeem, given(accepted, coded, redeemed));
    expect(decision).toMatchObject({ ok: false, refusal: 'code_replayed' });
    expect(decision.events.map((event) => event.type)).toEqual(['authorization-code-replayed']);
    // Another client, or no verifier, with the used code: no replay recorded, nothing revoked.
    for (const wrong of [{ clientId: 'https://x.example/c.json' }, { verifier: 'v'.repeat(43) }]) {
      const stranger = decideRedeem({ ...redeem, ...wrong }, given(accepted, coded, redeemed));
      expect(stranger).toMatchObject({ refusal: 'bad_code', events: [] });
    }
    // A stranger's guess at a redeemed request is no replay: nothing is revoked for it.
    const guess = decideRedeem(
      { ...redeem, secret: newSecret().secret },
      given(accepted, coded, redeemed),
    );
    expect(guess).toMatchObject({ refusal: 'bad_code', events: [] });
  });
});

const first = newSecret();
const second = newSecret();
const redeemedWith = (jkt?: string) => ({
  type: 'authorization-code-redeemed',
  data: { request_id: 'ar_1', refresh: first.digest, ...(jkt ? { jkt } : {}) },
});
const refreshed = {
  type: 'authorization-refreshed',
  data: { request_id: 'ar_1', refresh: second.digest },
};
const refresh = {
  requestId: 'ar_1',
  now: 2000,
  eventId: 'e-10',
  metadata,
  secret: first.secret,
  clientId: AGENT,
  jkt: undefined as string | undefined,
  next: second.digest,
  otherResource: false,
  scopes: undefined as readonly string[] | undefined,
};

describe("a consent's refresh tokens", () => {
  it('when the client refreshes with the token that stands, then the next replaces it', () => {
    const decision = decideRefresh(refresh, given(accepted, coded, redeemedWith()));
    expect(decision.ok && decision.events[0]).toMatchObject({
      type: 'authorization-refreshed',
      data: { refresh: second.digest },
    });
    const after = given(accepted, coded, redeemedWith(), refreshed);
    expect(after.refresh).toMatchObject({ digest: second.digest, retired: [first.digest] });
    expect(decideRefresh({ ...refresh, secret: second.secret }, after).ok).toBe(true);
  });

  it('when a replaced token comes again from its client, then the reuse is recorded and the consent void', () => {
    const after = given(accepted, coded, redeemedWith(), refreshed);
    const decision = decideRefresh(refresh, after);
    expect(decision).toMatchObject({ ok: false, refusal: 'refresh_reused' });
    expect(decision.events.map((event) => event.type)).toEqual(['authorization-refresh-reused']);
    const reused = given(accepted, coded, redeemedWith(), refreshed, decision.events[0]!);
    expect(reused.status).toBe('replayed');
    // Nothing refreshes a void consent, not even the token that stood.
    expect(decideRefresh({ ...refresh, secret: second.secret }, reused)).toMatchObject({
      refusal: 'bad_refresh',
      events: [],
    });
  });

  it('when the token is unknown, another client sends it, or it is bound to another key, then nothing is recorded', () => {
    const bound = given(accepted, coded, redeemedWith('key-a'), refreshed);
    for (const [wrong, refusal] of [
      [{ secret: newSecret().secret }, 'bad_refresh'],
      [{ clientId: 'https://agents.example/b.json' }, 'bad_refresh'],
      [{ jkt: undefined }, 'other_key'],
      [{ jkt: 'key-b' }, 'other_key'],
    ] as const) {
      // The replaced token, by a copy's holder without the key: refused, and no revocation.
      const decision = decideRefresh({ ...refresh, jkt: 'key-a', ...wrong }, bound);
      expect(decision, JSON.stringify(wrong)).toMatchObject({ ok: false, refusal, events: [] });
    }
    expect(decideRefresh({ ...refresh, secret: second.secret, jkt: 'key-a' }, bound).ok).toBe(true);
  });

  it('when the consent has ended, then no refresh', () => {
    const state = given(accepted, coded, redeemedWith());
    expect(decideRefresh({ ...refresh, now: 5000 }, state)).toMatchObject({
      refusal: 'consent_ended',
    });
  });

  it('when the storefront withdraws the consent, then it is void, once; another space or an agent cannot', () => {
    const state = given(accepted, coded, redeemedWith());
    const command = { ...step, storefront };
    const decision = decideRevokeConsent(command, state);
    expect(decision.ok && decision.events.map((event) => event.type)).toEqual([
      'authorization-consent-revoked',
    ]);
    const revoked = given(accepted, coded, redeemedWith(), decision.events[0]!);
    expect(revoked.status).toBe('revoked');
    expect(decideRevokeConsent(command, revoked)).toMatchObject({ ok: true, events: [] });
    expect(decideRefresh(refresh, revoked)).toMatchObject({ refusal: 'bad_refresh' });
    expect(decideRevokeConsent({ ...command, spaceId: 'space-b' }, state)).toMatchObject({
      refusal: 'not_found',
    });
    const agent = { clientId: AGENT };
    expect(decideRevokeConsent({ ...command, storefront: agent }, state)).toMatchObject({
      refusal: 'not_storefront',
    });
    expect(decideRevokeConsent(command, given())).toMatchObject({ refusal: 'not_found' });
  });

  it('when someone knows only the consent’s id, then every refusal is the same: nothing of it is said', () => {
    const bound = given(accepted, coded, redeemedWith('key-a'));
    // Another key, another resource, wider scopes: each said only to whoever holds the token.
    for (const sent of [{}, { otherResource: true }, { scopes: ['orders:read'] }]) {
      const stranger = decideRefresh({ ...refresh, ...sent, secret: newSecret().secret }, bound);
      expect(stranger, JSON.stringify(sent)).toMatchObject({ refusal: 'bad_refresh', events: [] });
    }
    const holder = { ...refresh, jkt: 'key-a' };
    expect(decideRefresh({ ...holder, otherResource: true }, bound)).toMatchObject({
      refusal: 'other_resource',
    });
    expect(decideRefresh({ ...holder, scopes: ['orders:read'] }, bound)).toMatchObject({
      refusal: 'widened',
    });
    expect(decideRefresh({ ...holder, scopes: ['products:read'] }, bound).ok).toBe(true);
    const code = decideRedeem({ ...redeem, otherResource: true }, given(accepted, coded));
    expect(code).toMatchObject({ refusal: 'other_resource', events: [] });
    const guess = { ...redeem, otherResource: true, secret: newSecret().secret };
    expect(decideRedeem(guess, given(accepted, coded))).toMatchObject({ refusal: 'bad_code' });
  });

  it('when a refresh was not issued after its token was replaced, then the replaced one stands again', () => {
    const state = given(accepted, coded, redeemedWith(), refreshed);
    const undone = decideUndoRefresh({ ...refresh, next: second.digest }, state);
    expect(undone.ok && undone.events.map((event) => event.type)).toEqual([
      'authorization-refresh-undone',
    ]);
    const after = given(accepted, coded, redeemedWith(), refreshed, undone.events[0]!);
    expect(after.refresh).toMatchObject({ digest: first.digest, retired: [] });
    // The retry with the token the client holds is a refresh, not a reuse.
    expect(decideRefresh(refresh, after).ok).toBe(true);
    // Only the replacement nobody received is undone: not after a later refresh, nor a void consent.
    expect(decideUndoRefresh({ ...refresh, next: newSecret().digest }, state)).toMatchObject({
      ok: true,
      events: [],
    });
  });
});
