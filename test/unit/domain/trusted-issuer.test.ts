import { describe, expect, it } from 'vitest';
import {
  decideAddIssuer,
  decideChangeIssuer,
  decideRemoveIssuer,
  type RuleCredential,
  type TrustedIssuerState,
} from '../../../src/domain/trusted-issuer/decide.js';
import { matchingRule } from '../../../src/domain/trusted-issuer/match.js';
import type { TrustedIssuerDefinition } from '../../../src/domain/event-data/trusted-issuer.js';

const metadata = {
  actor: 'user:alice',
  request_id: 'r1',
  client_ip: '127.0.0.1',
  user_agent: null,
};
const OURS = 'https://tokens.example';
const definition: TrustedIssuerDefinition = {
  iss: 'https://kubernetes.default.svc.cluster.local',
  jwks_uri: 'https://cluster.example/openid/v1/jwks',
  audience: OURS,
  rules: [
    {
      id: 'checkout',
      claims: {
        'kubernetes.io/namespace': 'shop',
        'kubernetes.io/serviceaccount/name': 'checkout',
      },
      client_id: 'client-1',
      scopes: ['orders:read'],
    },
  ],
};
const credential = (over: Partial<RuleCredential> = {}): ReadonlyMap<string, RuleCredential> =>
  new Map([
    ['client-1', { spaceId: 'space-a', status: 'active', allows: ['orders:read'], ...over }],
  ]);
const command = {
  eventId: 'e1',
  metadata,
  spaceId: 'space-a',
  issuerId: 'tis_1',
  ours: [OURS],
  lifetimeCeiling: 600,
  credentials: credential(),
  definition,
};
const state: TrustedIssuerState = {
  issuerId: 'tis_1',
  spaceId: 'space-a',
  definition,
  removed: false,
};

describe('trusted issuers (issue 54)', () => {
  it('given a space, when an admin trusts an issuer, then trusted-issuer-added names it and who', () => {
    const decision = decideAddIssuer(command);
    expect(decision.ok).toBe(true);
    const event = decision.events[0]!;
    expect(event.type).toBe('trusted-issuer-added');
    expect(event.data).toEqual({ issuer_id: 'tis_1', issuer: definition });
    expect(event.metadata.actor).toBe('user:alice');
  });

  it('given a live issuer of the same iss, when another is added, then it is refused', () => {
    expect(decideAddIssuer({ ...command, sameIss: 'tis_0' })).toMatchObject({
      ok: false,
      refusal: 'duplicate_iss',
    });
  });

  it("given a rule naming another space's credential, a revoked one, or scopes beyond it, then refused naming the field", () => {
    for (const credentials of [
      credential({ spaceId: 'space-b' }),
      credential({ status: 'revoked' }),
      new Map(),
    ]) {
      const decision = decideAddIssuer({ ...command, credentials });
      expect(decision).toMatchObject({ ok: false, refusal: 'invalid_definition' });
      expect(decision.ok || decision.detail).toMatch(/^rules\.checkout\.client_id/);
    }
    const beyond = decideAddIssuer({ ...command, credentials: credential({ allows: [] }) });
    expect(beyond.ok || beyond.detail).toMatch(/^rules\.checkout\.scopes/);
  });

  it('given a space at TRUSTED_ISSUER_MAX_PER_SPACE, when one more is added, then refused; below it, trusted', () => {
    expect(decideAddIssuer({ ...command, issuers: { count: 2, limit: 2 } })).toMatchObject({
      ok: false,
      refusal: 'issuer_limit',
    });
    expect(decideAddIssuer({ ...command, issuers: { count: 1, limit: 2 } }).ok).toBe(true);
  });

  it('given a max_lifetime_seconds above the ceiling, then refused naming it; at the ceiling, trusted', () => {
    const lifetime = (seconds: number) =>
      decideAddIssuer({ ...command, definition: { ...definition, max_lifetime_seconds: seconds } });
    const over = lifetime(601);
    expect(over.ok || over.detail).toMatch(/^max_lifetime_seconds: at most 600/);
    expect(lifetime(600).ok).toBe(true);
  });

  it('given an audience not naming this service, then refused', () => {
    const decision = decideAddIssuer({
      ...command,
      definition: { ...definition, audience: 'https://elsewhere' },
    });
    expect(decision.ok || decision.detail).toMatch(/^audience/);
  });

  it('given an issuer, when changed, then trusted-issuer-changed; when the same, nothing; of another space, not found', () => {
    const changed = decideChangeIssuer(
      {
        ...command,
        definition: {
          ...definition,
          audience: OURS,
          rules: [{ ...definition.rules[0]!, id: 'renamed' }],
        },
      },
      state,
    );
    expect(changed.events.map((event) => event.type)).toEqual(['trusted-issuer-changed']);
    expect(decideChangeIssuer(command, state).events).toEqual([]);
    expect(decideChangeIssuer({ ...command, spaceId: 'space-b' }, state)).toMatchObject({
      ok: false,
      refusal: 'not_found',
    });
  });

  it('given an issuer, when removed, then trusted-issuer-removed; removed again, nothing', () => {
    expect(decideRemoveIssuer(command, state).events.map((event) => event.type)).toEqual([
      'trusted-issuer-removed',
    ]);
    expect(decideRemoveIssuer(command, { ...state, removed: true }).events).toEqual([]);
    expect(decideRemoveIssuer({ ...command, spaceId: 'space-b' }, state)).toMatchObject({
      ok: false,
      refusal: 'not_found',
    });
  });

  it('given claims, the rule whose every claim matches is chosen, a trailing * a prefix', () => {
    const claims = {
      sub: 'system:serviceaccount:shop:checkout',
      'kubernetes.io': { namespace: 'shop', serviceaccount: { name: 'checkout' } },
    };
    expect(matchingRule(definition, claims)?.id).toBe('checkout');
    expect(
      matchingRule(definition, {
        ...claims,
        'kubernetes.io': { namespace: 'other', serviceaccount: { name: 'checkout' } },
      }),
    ).toBeUndefined();
    const spiffe = {
      ...definition,
      rules: [{ id: 's', claims: { sub: 'spiffe://shop.example/ns/shop/*' }, client_id: 'c' }],
    };
    expect(matchingRule(spiffe, { sub: 'spiffe://shop.example/ns/shop/sa/payments' })?.id).toBe(
      's',
    );
    expect(
      matchingRule(spiffe, { sub: 'spiffe://evil.example/ns/shop/sa/payments' }),
    ).toBeUndefined();
  });
});
