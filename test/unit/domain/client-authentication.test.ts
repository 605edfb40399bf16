import { describe, expect, it } from 'vitest';
import {
  decideClientAuthentication,
  decideFailureSummary,
} from '../../../src/domain/client-authentication/decide.js';
import { decideBudgetedRecording, type BudgetWindow } from '../../../src/domain/budget-window.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import {
  credentialCreated,
  credentialRevoked,
  given,
  metadata,
  sequentialIds,
} from '../../support/given.js';

const nextId = sequentialIds();
const created = credentialCreated(nextId());
const active = given(evolveCredential, undefined, [created]);
const attempt = (secretMatches: boolean) => ({ secretMatches, eventId: nextId(), metadata });

describe('client authentication', () => {
  it('given an active credential and its secret, then authenticated, nothing recorded', () => {
    expect(decideClientAuthentication(attempt(true), active)).toEqual({
      ok: true,
      events: [],
      facts: active,
    });
  });

  it('given an unknown client id, then refused with nothing recorded (no space to record it in)', () => {
    expect(decideClientAuthentication(attempt(false), undefined)).toEqual({
      ok: false,
      refusal: 'invalid_client',
      events: [],
    });
  });

  it('given a wrong secret, then refused and client-authentication-failed without the secret', () => {
    const outcome = decideClientAuthentication(attempt(false), active);
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.events[0]?.data).toEqual({
      client_id: 'ci_1',
      reason: 'secret_mismatch',
    });
  });

  it("given a trusted issuer's assertion refused for its aud, then recorded naming the claim", () => {
    const refused = { ...attempt(false), method: 'assertion' as const, claim: 'aud' };
    const outcome = decideClientAuthentication(refused, active);
    expect(!outcome.ok && outcome.events[0]?.data).toEqual({
      client_id: 'ci_1',
      reason: 'assertion_invalid',
      claim: 'aud',
    });
  });

  it('given a revoked credential, then refused even with the right secret, recorded as revoked', () => {
    const state = given(evolveCredential, undefined, [
      created,
      ...credentialRevoked(nextId(), active),
    ]);
    const outcome = decideClientAuthentication(attempt(true), state);
    expect(!outcome.ok && outcome.events[0]?.data.reason).toBe('credential_revoked');
  });
});

describe('failed authentications past the per-minute event budget', () => {
  const window: BudgetWindow = {
    spaceId: 'space-a',
    windowStart: Date.parse('2026-11-22T10:00:00Z'),
    windowMs: 60_000,
    appended: 10,
    counts: {},
    ips: ['192.0.2.1'],
    ipCount: 1,
    tags: [],
    tagCount: 0,
  };

  it('given the budget spent, then failures are counted, not recorded one by one', () => {
    expect(decideBudgetedRecording({ appended: 9 }, 10, 'event')).toEqual({
      ok: true,
      events: ['event'],
      facts: undefined,
    });
    expect(decideBudgetedRecording({ appended: 10 }, 10, 'event')).toEqual({
      ok: false,
      refusal: 'over_budget',
      events: [],
    });
  });

  it('given a closed window with nothing counted, then no summary', () => {
    expect(
      decideFailureSummary({ clientId: 'ci_1', eventId: nextId(), requestId: 'r' }, window),
    ).toEqual({ ok: true, events: [], facts: undefined });
  });

  it('given counted failures, then one summary naming the window, the counts and the sources', () => {
    const [summary] = decideFailureSummary(
      { clientId: 'ci_1', eventId: nextId(), requestId: 'r' },
      {
        ...window,
        counts: { failed: 40, refused: 7 },
        ips: ['192.0.2.1', '192.0.2.2'],
        ipCount: 3,
      },
    ).events;
    expect(summary?.data).toEqual({
      client_id: 'ci_1',
      window_start: '2026-11-22T10:00:00.000Z',
      window_end: '2026-11-22T10:01:00.000Z',
      failed: 40,
      refused_while_locked_out: 7,
      source_ips: ['192.0.2.1', '192.0.2.2'],
      source_ip_count: 3,
    });
    expect(summary?.metadata).toMatchObject({
      actor: 'service:failed-authentication-budget',
      client_ip: '192.0.2.1',
    });
  });
});
