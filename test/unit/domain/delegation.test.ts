import { describe, expect, it } from 'vitest';
import { tokenClaims } from '../../../src/domain/token/claims.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import { decideDelegatedToken } from '../../../src/domain/token/delegate.js';
import { reserveDelegatedScopes } from '../../../src/domain/policy.js';
import { credentialCreated, given, metadata, sequentialIds } from '../../support/given.js';

const NOW = Date.parse('2026-11-22T00:00:00Z');
const nextId = sequentialIds();
const catalog = {
  'storefront.test': {
    'products:read': { description: 'read', public: true, default: true },
    'cart:write': { description: 'carts', public: true, default: true },
    'checkout:write': { description: 'check out', public: true, default: false },
  },
};
const storefront = given(evolveCredential, undefined, [
  credentialCreated(nextId(), {
    scopes: ['products:read', 'cart:write', 'checkout:write'],
    catalog,
  }),
]);
const agent = { ...storefront, clientId: 'agent-1', scopes: ['products:read', 'cart:write'] };
const subject = {
  clientId: storefront.clientId,
  spaceId: storefront.spaceId,
  audience: 'storefront.test',
  jti: 'pub-1',
  parentJti: 'priv-1',
  expiresAt: NOW / 1000 + 120,
  scopes: ['products:read', 'cart:write', 'checkout:write'],
  customerId: 'c-1',
  segmentId: 'vip',
  mayAct: 'agent-1',
  actors: [storefront.clientId],
  revoked: false,
};
const actor = {
  clientId: 'agent-1',
  spaceId: storefront.spaceId,
  expiresAt: NOW / 1000 + 3600,
  revoked: false,
};
const command = (overrides: object = {}) => ({
  now: NOW,
  eventId: nextId(),
  jti: `jti-${nextId()}`,
  metadata,
  spaceId: storefront.spaceId,
  subject,
  actor,
  ...overrides,
});
const policy = { ttlSeconds: 3600, catalog, maxDepth: 3 };
const credentials = { subject: [storefront], agent };

describe('token: delegation the customer allowed (RFC 8693 may_act)', () => {
  it('given the agent named in may_act, then a token acting for the customer, narrowed', () => {
    const decision = decideDelegatedToken(command(), credentials, policy);
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    const claims = tokenClaims(decision.events[0]!, 'issuer', 'space');
    expect(claims.token_kind === 'public' && claims.act).toEqual({
      sub: 'agent-1',
      act: { sub: storefront.clientId },
    });
    // Never past the subject token's expiry, however long the TTL.
    expect(claims.exp).toBe(subject.expiresAt);
    expect(decision.events[0]!.data).toMatchObject({
      client_id: 'agent-1',
      customer_id: 'c-1',
      parent_jti: 'priv-1',
      subject_jti: 'pub-1',
      actors: ['agent-1', storefront.clientId],
      scope: 'cart:write products:read',
      narrowed: 'checkout:write',
    });
  });

  it('given another agent, a foreign actor or a wider scope, then refused with no event', () => {
    const refusalOf = (c: object, creds: object = credentials) => {
      const decision = decideDelegatedToken(command(c), { ...credentials, ...creds }, policy);
      return decision.ok ? undefined : decision.refusal;
    };
    expect(refusalOf({ subject: { ...subject, mayAct: 'agent-2' } })).toBe('actor_not_allowed');
    expect(refusalOf({ subject: { ...subject, mayAct: undefined } })).toBe('actor_not_allowed');
    expect(refusalOf({ actor: { ...actor, spaceId: 'elsewhere' } })).toBe('actor_space');
    expect(refusalOf({ spaceId: 'elsewhere' })).toBe('subject_space');
    expect(refusalOf({ subject: { ...subject, revoked: true } })).toBe('subject_inactive');
    expect(refusalOf({ scopes: ['checkout:write'] })).toBe('invalid_scope');
    // The storefront's credential narrowed since: its customer's token passes nothing on.
    const narrowed = { ...storefront, scopes: ['products:read'] };
    expect(refusalOf({}, { subject: [narrowed] })).toBe('subject_inactive');
    // Re-delegated: the storefront behind the agent before revoked, or gone, voids the chain.
    const before = { ...storefront, clientId: 'agent-0' };
    const revoked = { ...storefront, status: 'revoked' as const };
    expect(refusalOf({}, { subject: [before, storefront] })).toBe(undefined);
    expect(refusalOf({}, { subject: [before, revoked] })).toBe('subject_inactive');
    expect(refusalOf({}, { subject: [before, undefined] })).toBe('subject_inactive');
    expect(refusalOf({}, { agent: { ...agent, requireDpop: true } })).toBe('dpop_required');
    // The storefront behind it asks so too (a consent's tokens, or an exchange of its token).
    const bound = { ...storefront, requireDpop: true };
    expect(refusalOf({}, { subject: [bound] })).toBe('dpop_required');
    expect(refusalOf({ jkt: 'k'.repeat(43) }, { subject: [bound] })).toBe(undefined);
    expect(refusalOf({ jkt: 'k'.repeat(43) }, { agent: { ...agent, requireDpop: true } })).toBe(
      undefined,
    );
    expect(refusalOf({ subject: { ...subject, actors: ['a', 'b', 'c', 'd'] } })).toBe(
      'chain_too_deep',
    );
  });

  it('given a may_act on the exchange, then the token names the next agent, within the depth', () => {
    const next = { ...agent, clientId: 'agent-2' };
    const again = command({ mayAct: { clientId: 'agent-2', agent: next } });
    const decision = decideDelegatedToken(again, credentials, policy);
    expect(decision.ok && decision.events[0]!.data.may_act).toBe('agent-2');
    const refusalOf = (c: object, maxDepth = 3) => {
      const d = decideDelegatedToken(command(c), credentials, { ...policy, maxDepth });
      return d.ok ? undefined : d.refusal;
    };
    expect(refusalOf({ mayAct: { clientId: 'nobody', agent: undefined } })).toBe('may_act_unknown');
    // One agent allowed after the storefront: this one, and no next.
    expect(refusalOf({ mayAct: { clientId: 'agent-2', agent: next } }, 1)).toBe('chain_too_deep');
    expect(refusalOf({ subject: { ...subject, actors: ['a', 'b'] } }, 1)).toBe('chain_too_deep');
  });

  it('given authorization_details, then carried, fewer of them, or refused when widened', () => {
    const cap = { type: 'payment_cap', max_amount: '120.00' };
    const shop = { type: 'merchant', id: 'shop-1' };
    const held = { subject: { ...subject, authorizationDetails: [cap, shop] } };
    const decide = (c: object) => decideDelegatedToken(command(c), credentials, policy);
    const carried = decide(held);
    expect(carried.ok && carried.events[0]!.data.authorization_details).toEqual([cap, shop]);
    const fewer = decide({
      ...held,
      authorizationDetails: [{ max_amount: '120.00', type: 'payment_cap' }],
    });
    expect(fewer.ok && fewer.events[0]!.data).toMatchObject({
      authorization_details: [cap],
      narrowed_details: [shop],
    });
    const raised = decide({ ...held, authorizationDetails: [{ ...cap, max_amount: '999' }] });
    expect(raised.ok ? undefined : raised.refusal).toBe('details_widened');
    const none = decide({ authorizationDetails: [cap] });
    expect(none.ok ? undefined : none.refusal).toBe('details_widened');
  });

  it('given a delegation-only scope, then kept for may_act, refused without, never a default', () => {
    const only = {
      s: {
        ...catalog['storefront.test'],
        'checkout:complete': { description: 'x', public: true, default: true, delegated: true },
      },
    };
    const reserve = (asked: boolean, mayAct: boolean) =>
      reserveDelegatedScopes(only, 's', {
        scopes: ['products:read', 'checkout:complete'],
        asked,
        mayAct,
      });
    expect(reserve(true, true)).toEqual({
      ok: true,
      scopes: ['products:read'],
      reserved: ['checkout:complete'],
    });
    expect(reserve(true, false)).toMatchObject({
      ok: false,
      scope: 'checkout:complete',
      reason: 'delegated_only',
    });
    expect(reserve(false, false)).toEqual({ ok: true, scopes: ['products:read'] });
  });
});
