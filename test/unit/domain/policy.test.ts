import { describe, expect, it } from 'vitest';
import {
  consentReceiptReadable,
  receiptReadable,
  receiverStands,
  receiverTargetRules,
  credentialActive,
  credentialInSpace,
  eventVisibleTo,
  honouredInSwitchOver,
  issuedTo,
  loginRefusal,
  mayTarget,
  ownedBySpace,
  onlyPublishedHeads,
  readableTree,
  revokedByList,
  roleMayChange,
  roleOfClaim,
  ROUTE_POLICIES,
  tokenInSpace,
  tokenOfKind,
  tokenRevoked,
  userHasSpace,
  voidingJtis,
  withinSpaceCeiling,
} from '../../../src/domain/policy.js';

// One describe per rule of src/domain/policy (the scope rules: scopes.test.ts). Each case holds
// both sides of its rule, so replacing the rule's line by a constant answer fails it.

describe('policy: a user acts in a space only when their login token lists it', () => {
  it('lets in a listed space and no other', () => {
    expect(userHasSpace({ spaces: ['a', 'b'] }, 'b')).toBe(true);
    expect(userHasSpace({ spaces: ['a', 'b'] }, 'c')).toBe(false);
    expect(userHasSpace({ spaces: [] }, '')).toBe(false);
  });
});

describe('policy: only an admin changes anything', () => {
  it('lets an admin change, and no other role', () => {
    expect(roleMayChange('admin')).toBe(true);
    expect(roleMayChange('auditor')).toBe(false);
    expect(roleMayChange('Admin')).toBe(false);
  });
});

describe("policy: the role a login token's claim names", () => {
  it('gives no claim the fallback, admin to admin, and anything else the least', () => {
    expect(roleOfClaim(undefined, 'auditor')).toBe('auditor');
    expect(roleOfClaim(undefined, 'admin')).toBe('admin');
    expect(roleOfClaim('admin', 'auditor')).toBe('admin');
    for (const claim of ['auditor', 'root', ['admin'], null]) {
      expect(roleOfClaim(claim, 'admin')).toBe('auditor');
    }
  });
});

describe('policy: a login route lets a user in by the policy it declares', () => {
  const admin = { spaces: ['a'], role: 'admin' };
  const auditor = { spaces: ['a'], role: 'auditor' };
  it('reads: any role of the space', () => {
    expect(loginRefusal('space-read', auditor, 'a')).toBeUndefined();
    expect(loginRefusal('space-read', admin, 'a')).toBeUndefined();
  });
  it('changes: an admin of the space only', () => {
    expect(loginRefusal('space-change', admin, 'a')).toBeUndefined();
    expect(loginRefusal('space-change', auditor, 'a')).toBe('role_forbidden');
  });
  it('another space is refused as such first, whatever the role', () => {
    expect(loginRefusal('space-read', admin, 'b')).toBe('space_not_granted');
    expect(loginRefusal('space-change', auditor, 'b')).toBe('space_not_granted');
  });
  it('names who authenticates for each policy', () => {
    expect(
      Object.fromEntries(Object.entries(ROUTE_POLICIES).map(([name, p]) => [name, p.caller])),
    ).toEqual({
      public: 'public',
      client: 'client',
      'private-token': 'private-token',
      'space-read': 'login',
      'space-change': 'login',
      'stream-receiver': 'private-token',
    });
  });
});

describe('policy: a credential exists for its own space only', () => {
  it('is found in its space and not in another', () => {
    const credential = { spaceId: 'a', clientId: 'ci_1' };
    expect(credentialInSpace(credential, 'a')).toBe(credential);
    expect(credentialInSpace(credential, 'b')).toBeUndefined();
    expect(credentialInSpace(undefined, 'a')).toBeUndefined();
  });
});

describe("policy: what belongs to a space is that space's alone", () => {
  it("is its own space's, not another's, and an operator's is no space's", () => {
    expect(ownedBySpace({ spaceId: 'a' }, 'a')).toBe(true);
    expect(ownedBySpace({ spaceId: 'a' }, 'b')).toBe(false);
    expect(ownedBySpace({ spaceId: null }, 'a')).toBe(false);
  });
});

describe("policy: a client's budget stays within its space's ceiling", () => {
  it('allows none, or up to the ceiling', () => {
    expect(withinSpaceCeiling(null, 100)).toBe(true);
    expect(withinSpaceCeiling(undefined, 100)).toBe(true);
    expect(withinSpaceCeiling(100, 100)).toBe(true);
    expect(withinSpaceCeiling(101, 100)).toBe(false);
  });
});

describe('policy: a credential counts only while active', () => {
  it('is active, or revoked, or absent', () => {
    expect(credentialActive({ status: 'active' })).toBe(true);
    expect(credentialActive({ status: 'revoked' })).toBe(false);
    expect(credentialActive(undefined)).toBe(false);
  });
});

describe("policy: a token is its space's business alone", () => {
  it('is in its own space only', () => {
    expect(tokenInSpace({ spaceId: 'a' }, 'a')).toBe(true);
    expect(tokenInSpace({ spaceId: 'a' }, 'b')).toBe(false);
  });
});

describe('policy: a token is accepted only where its kind is', () => {
  it('takes its kind, or any', () => {
    expect(tokenOfKind({ token_kind: 'private' }, 'private')).toBe(true);
    expect(tokenOfKind({ token_kind: 'public' }, 'private')).toBe(false);
    expect(tokenOfKind({ token_kind: 'private' }, 'public')).toBe(false);
    expect(tokenOfKind({ token_kind: 'public' }, 'any')).toBe(true);
  });
});

describe('policy: a token acts for the client it was issued to', () => {
  it('is that client’s, no other’s', () => {
    expect(issuedTo({ clientId: 'ci_1' }, 'ci_1')).toBe(true);
    expect(issuedTo({ clientId: 'ci_1' }, 'ci_2')).toBe(false);
  });
});

describe('policy: a revoked token, or a public one whose private token was revoked, is void', () => {
  const privateToken = { jti: 'p', token_kind: 'private' as const };
  const publicToken = { jti: 'q', token_kind: 'public' as const, parent_jti: 'p' };
  it('names the jtis that void each kind', () => {
    expect(voidingJtis(privateToken)).toEqual(['p']);
    expect(voidingJtis(publicToken)).toEqual(['q', 'p']);
    // Delegated: the tokens it was exchanged from void it too.
    const delegated = { ...publicToken, jti: 'd', subject_jtis: ['m', 'q'] };
    expect(voidingJtis(delegated)).toEqual(['d', 'p', 'm', 'q']);
  });
  it('asks the lookup in order and stops at the first revoked', async () => {
    const asked: string[] = [];
    const lookup = (revoked: string[]) => (jti: string) => {
      asked.push(jti);
      return Promise.resolve(revoked.includes(jti));
    };
    expect(await tokenRevoked(publicToken, lookup(['p']))).toBe(true);
    expect(await tokenRevoked(publicToken, lookup([]))).toBe(false);
    expect(await tokenRevoked(privateToken, lookup(['q']))).toBe(false);
    asked.length = 0;
    expect(await tokenRevoked(publicToken, lookup(['q']))).toBe(true);
    expect(asked).toEqual(['q']);
  });
  it("holds a resource server's list to the same rule, and a client's revocation to all its tokens", () => {
    const list = (tokens: string[], clients: [string, number][] = [], keys: string[] = []) => ({
      tokens: new Set(tokens),
      clients: new Map(clients),
      keys: new Set(keys),
    });
    const token = { ...publicToken, client_id: 'ci_1', iat: 100 };
    expect(revokedByList(list(['q']), token, 'k1')).toBe(true);
    expect(revokedByList(list(['p']), token, 'k1')).toBe(true);
    expect(revokedByList(list([]), token, 'k1')).toBe(false);
    expect(revokedByList(list([], [['ci_1', 100_000]]), token, 'k1')).toBe(true);
    // Minted after its revocation by a replica whose cache still held the credential active:
    // introspection refuses it (a revoked credential never stands again), so the kit must too.
    expect(revokedByList(list([], [['ci_1', 99_999]]), token, 'k1')).toBe(true);
    expect(revokedByList(list([], [['ci_2', 100_000]]), token, 'k1')).toBe(false);
  });
  it('voids every token a withdrawn key signs, whatever its claims (issue 51, item 2)', () => {
    const token = { ...publicToken, client_id: 'ci_1', iat: 100 };
    const withdrawn = { tokens: new Set<string>(), clients: new Map(), keys: new Set(['k0']) };
    expect(revokedByList(withdrawn, token, 'k0')).toBe(true);
    expect(revokedByList(withdrawn, token, 'k1')).toBe(false);
  });
});

describe("policy: a token bought with another is for the paying token's audience only", () => {
  it('targets that audience and no other', () => {
    expect(mayTarget({ aud: 'shop.test' }, 'shop.test')).toBe(true);
    expect(mayTarget({ aud: 'shop.test' }, 'other.test')).toBe(false);
  });
});

describe('policy: who reads which tree of the audit trail', () => {
  it("serves a space's reader its own tree, or the log tree, never another space's", () => {
    expect(readableTree('space', 'a')).toEqual({ spaceId: 'a', publishedHeadsOnly: false });
    expect(readableTree('log', 'a')).toEqual({ spaceId: null, publishedHeadsOnly: true });
  });
  it('serves the log tree at published heads only', () => {
    expect(onlyPublishedHeads('log')).toBe(true);
    expect(onlyPublishedHeads('space')).toBe(false);
  });
  it("shows an event to its own space's reader only", () => {
    expect(eventVisibleTo({ space_id: 'a' }, 'a')).toBe(true);
    expect(eventVisibleTo({ space_id: 'a' }, 'b')).toBe(false);
  });
});

describe('a shared-ring token in a switch-over', () => {
  const digest = Buffer.alloc(16, 7);
  it('is honoured only as the very token issued, and only until the switch-over is ended', () => {
    expect(honouredInSwitchOver({ digest, ended: false }, Buffer.alloc(16, 7))).toBe(true);
    expect(honouredInSwitchOver({ digest, ended: false }, Buffer.alloc(16, 8))).toBe(false);
    expect(honouredInSwitchOver({ digest, ended: false }, Buffer.alloc(15, 7))).toBe(false);
    expect(honouredInSwitchOver({ digest, ended: true }, Buffer.alloc(16, 7))).toBe(false);
    expect(honouredInSwitchOver(undefined, Buffer.alloc(16, 7))).toBe(false);
  });
});

describe('policy: a Shared Signals receiver (SSF 1.0 §8)', () => {
  const active = { status: 'active', spaceId: 'a', scopes: ['ssf:streams'] };
  it('stands while its credential is active, of the space, and granted the scope', () => {
    expect(receiverStands(active, 'a')).toBe(true);
    expect(receiverStands({ ...active, status: 'revoked' }, 'a')).toBe(false);
    expect(receiverStands(active, 'b')).toBe(false);
    expect(receiverStands({ ...active, scopes: [] }, 'a')).toBe(false);
    expect(receiverStands({ ...active, scopes: null }, 'a')).toBe(false);
    expect(receiverStands(undefined, 'a')).toBe(false);
  });
  it("never uses the operator's allowances for admins' sinks", () => {
    const rules = { production: true, allowHttpHosts: ['siem'], allowTargets: ['10.0.0.0/8'] };
    expect(receiverTargetRules(rules)).toEqual({
      production: true,
      allowHttpHosts: [],
      allowTargets: [],
    });
  });
});

describe('receipts (issue 67): whose a private token reads', () => {
  const reader = { jti: 'P1', clientId: 'shop' };
  const issued = (data: Record<string, unknown>, type = 'public-token-issued') => ({
    event_type: type,
    data,
  });

  it("its client's private tokens, a public token it bought, its client's revocations", () => {
    expect(receiptReadable(issued({ client_id: 'shop' }, 'private-token-issued'), reader)).toBe(
      true,
    );
    expect(receiptReadable(issued({ client_id: 'shop', parent_jti: 'P1' }), reader)).toBe(true);
    const revoked = { client_id: 'shop', revoked_by: 'client:shop' };
    expect(receiptReadable(issued(revoked, 'token-revoked'), reader)).toBe(true);
  });

  it("not an agent's delegated token its storefront bought, nor another's buy or revocation", () => {
    // Delegated: parent_jti is the storefront's token, client_id the agent (its address inside).
    expect(receiptReadable(issued({ client_id: 'agent', parent_jti: 'P1' }), reader)).toBe(false);
    expect(receiptReadable(issued({ client_id: 'shop', parent_jti: 'P2' }), reader)).toBe(false);
    expect(receiptReadable(issued({ client_id: 'other' }, 'private-token-issued'), reader)).toBe(
      false,
    );
    const byOther = { client_id: 'shop', revoked_by: 'login:alice' };
    expect(receiptReadable(issued(byOther, 'token-revoked'), reader)).toBe(false);
    expect(receiptReadable(issued({ client_id: 'shop' }, 'credential-created'), reader)).toBe(
      false,
    );
  });

  it("a consent's receipts go to the storefront client that accepted it only", () => {
    expect(consentReceiptReadable({ accepted_by: 'shop' }, 'shop')).toBe(true);
    expect(consentReceiptReadable({ accepted_by: 'shop' }, 'shop-2')).toBe(false);
    expect(consentReceiptReadable(undefined, 'shop')).toBe(false);
  });
});
