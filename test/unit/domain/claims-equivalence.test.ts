import { describe, expect, it } from 'vitest';
import { tokenClaims } from '../../../src/domain/token/claims.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import { decideDelegatedToken } from '../../../src/domain/token/delegate.js';
import { decideIssuePublicToken } from '../../../src/domain/token/decide.js';
import { actorClaimOf, mayActClaim } from '#verifier/actor-claim.js';
import { secondsOf } from '../../../src/domain/times.js';
import { credentialCreated, given, metadata, sequentialIds } from '../../support/given.js';

// The claims read from the decided event are byte-for-byte (key order too) those
// 4d0da87's issue-public.ts / issue-delegated.ts built by hand.
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
const agent2 = { ...agent, clientId: 'agent-2' };
const cap = { type: 'payment_cap', max_amount: '100.00' };

describe('claims read from the decided event equal the hand-built ones of before (4d0da87)', () => {
  it('delegated, re-delegating, with details, DPoP and earlier subjects', () => {
    const subject = {
      clientId: storefront.clientId,
      spaceId: storefront.spaceId,
      audience: 'storefront.test',
      jti: 'pub-1',
      parentJti: 'priv-1',
      expiresAt: NOW / 1000 + 120,
      scopes: ['products:read', 'cart:write'],
      customerId: 'c-1',
      segmentId: 'vip',
      mayAct: 'agent-1',
      actors: [storefront.clientId],
      // Delegated itself: its own subjects reach the new token's claims through its event.
      subjects: ['pub-0'],
      revoked: false,
      authorizationDetails: [cap],
    };
    const actor = {
      clientId: 'agent-1',
      spaceId: storefront.spaceId,
      expiresAt: NOW / 1000 + 3600,
      revoked: false,
    };
    const decision = decideDelegatedToken(
      {
        now: NOW,
        eventId: nextId(),
        jti: 'jti-d',
        metadata,
        jkt: 'thumb',
        spaceId: storefront.spaceId,
        subject,
        actor,
        mayAct: { clientId: 'agent-2', agent: agent2 },
      },
      { subject: [storefront], agent },
      { ttlSeconds: 3600, catalog, maxDepth: 3 },
    );
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    const event = decision.events[0]!;
    const earlier = ['pub-0'];
    const iat = secondsOf(NOW);
    const old = {
      iss: 'iss',
      sub: 'c-1',
      aud: 'storefront.test',
      exp: Math.min(iat + 300, subject.expiresAt, actor.expiresAt),
      iat,
      jti: 'jti-d',
      client_id: 'agent-1',
      space_id: storefront.spaceId,
      token_kind: 'public',
      customer_id: 'c-1',
      segment_id: 'vip',
      parent_jti: 'priv-1',
      subject_jtis: ['pub-1', ...earlier],
      act: actorClaimOf(['agent-1', storefront.clientId]),
      may_act: mayActClaim('agent-2', undefined),
      authorization_details: [cap],
      scope: event.data.scope,
      cnf: { jkt: 'thumb' },
    };
    expect(JSON.stringify(tokenClaims(event, 'iss', storefront.spaceId))).toBe(JSON.stringify(old));
  });

  it('public, naming an agent, with a reserved scope, details and a bound key', () => {
    const decision = decideIssuePublicToken(
      {
        now: NOW,
        eventId: nextId(),
        jti: 'jti-p',
        metadata,
        jkt: 'browser',
        spaceId: storefront.spaceId,
        customerId: 'c-1',
        segmentId: 'vip',
        mayAct: { clientId: 'agent-1', agent },
        authorizationDetails: [cap],
        privateToken: {
          clientId: storefront.clientId,
          spaceId: storefront.spaceId,
          audience: 'storefront.test',
          jti: 'priv-1',
          expiresAt: NOW / 1000 + 3600,
          scopes: ['products:read', 'cart:write', 'checkout:write'],
          revoked: false,
        },
      },
      storefront,
      { ttlSeconds: 900, catalog },
    );
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    const event = decision.events[0]!;
    const iat = secondsOf(NOW);
    const old = {
      iss: 'iss',
      sub: 'c-1',
      aud: 'storefront.test',
      exp: Number(new Date(event.data.expires_at)) / 1000,
      iat,
      jti: 'jti-p',
      client_id: storefront.clientId,
      space_id: storefront.spaceId,
      token_kind: 'public',
      customer_id: 'c-1',
      segment_id: 'vip',
      parent_jti: 'priv-1',
      act: { sub: storefront.clientId },
      may_act: mayActClaim('agent-1', event.data.may_act_scope),
      authorization_details: [cap],
      ...(event.data.scope ? { scope: event.data.scope } : {}),
      cnf: { jkt: 'browser' },
    };
    expect(JSON.stringify(tokenClaims(event, 'iss', storefront.spaceId))).toBe(JSON.stringify(old));
  });
});
