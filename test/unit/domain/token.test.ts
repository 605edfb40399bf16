import { describe, expect, it } from 'vitest';
import { tokenClaims } from '../../../src/domain/token/claims.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import {
  decideIssuePrivateToken,
  decideIssuePublicToken,
  decideRevokeToken,
} from '../../../src/domain/token/decide.js';
import { evolveToken } from '../../../src/domain/token/evolve.js';
import type { Token } from '../../../src/domain/token/state.js';
import {
  credentialCreated,
  credentialRevoked,
  given,
  metadata,
  sequentialIds,
} from '../../support/given.js';

const NOW = Date.parse('2026-11-22T00:00:00Z');
const nextId = sequentialIds();
const issuance = () => ({ now: NOW, eventId: nextId(), jti: `jti-${nextId()}`, metadata });
const created = credentialCreated(nextId());
const active = given(evolveCredential, undefined, [created]);
const policy = { audiences: ['storefront.test'], ttlSeconds: 3600, catalog: {} };

describe('token: a client_credentials grant (client already authenticated)', () => {
  it('given a known audience, then private-token-issued expiring after the TTL', () => {
    const command = { ...issuance(), audience: 'storefront.test' };
    const decision = decideIssuePrivateToken(command, active, policy);
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    const claims = tokenClaims(decision.events[0]!, 'issuer', 'space');
    expect(claims.exp - claims.iat).toBe(3600);
    expect(claims.jti).toBe(command.jti);
    expect(decision.events[0]!).toMatchObject({
      eventId: command.eventId,
      type: 'private-token-issued',
      data: {
        client_id: 'ci_1',
        audience: 'storefront.test',
        jti: command.jti,
        expires_at: '2026-11-22T01:00:00.000Z',
      },
    });
  });

  it('given an audience that is not configured, then invalid_target and no event', () => {
    expect(
      decideIssuePrivateToken({ ...issuance(), audience: 'elsewhere.test' }, active, policy),
    ).toEqual({ ok: false, refusal: 'invalid_target', events: [] });
  });
});

describe('token: a public token bought with a private one', () => {
  const privateToken = {
    clientId: 'ci_1',
    spaceId: 'space-a',
    audience: 'storefront.test',
    jti: 'p-1',
    expiresAt: NOW / 1000 + 3600,
    scopes: [],
    revoked: false,
  };
  const command = () => ({
    ...issuance(),
    spaceId: 'space-a',
    customerId: 'c',
    segmentId: 's',
    privateToken,
  });

  it('then public-token-issued that never outlives its private token', () => {
    const decision = decideIssuePublicToken(
      { ...command(), privateToken: { ...privateToken, expiresAt: NOW / 1000 + 60 } },
      active,
      { ttlSeconds: 900, catalog: {} },
    );
    const claims = decision.ok && tokenClaims(decision.events[0]!, 'issuer', 'space');
    expect(claims && claims.exp - claims.iat).toBe(60);
    expect(decision.ok && decision.events[0]!.data).toMatchObject({
      parent_jti: 'p-1',
      customer_id: 'c',
      segment_id: 's',
    });
  });

  it('given a credential that requires DPoP, then a bearer one is refused and a bound one recorded', () => {
    const strict = given(evolveCredential, undefined, [
      credentialCreated(nextId(), { requireDpop: true }),
    ]);
    expect(decideIssuePublicToken(command(), strict, { ttlSeconds: 900, catalog: {} })).toEqual({
      ok: false,
      refusal: 'dpop_required',
      events: [],
    });
    const bound = decideIssuePublicToken({ ...command(), jkt: 'thumbprint' }, strict, {
      ttlSeconds: 900,
      catalog: {},
    });
    expect(bound.ok && bound.events[0]!.data.cnf_jkt).toBe('thumbprint');
  });

  it('given a revoked private token, then token_revoked, before anything else is judged', () => {
    const revoked = { ...privateToken, revoked: true };
    for (const spaceId of ['space-a', 'space-b']) {
      expect(
        decideIssuePublicToken({ ...command(), spaceId, privateToken: revoked }, active, {
          ttlSeconds: 900,
          catalog: {},
        }),
      ).toEqual({ ok: false, refusal: 'token_revoked', events: [] });
    }
  });

  it('given X-Service-Space-ID of another space, then space_mismatch', () => {
    expect(
      decideIssuePublicToken({ ...command(), spaceId: 'space-b' }, active, {
        ttlSeconds: 900,
        catalog: {},
      }),
    ).toEqual({ ok: false, refusal: 'space_mismatch', events: [] });
  });

  it('given a revoked, unknown or other-space credential, then credential_inactive', () => {
    const revokedState = given(evolveCredential, undefined, [
      created,
      ...credentialRevoked(nextId(), active),
    ]);
    const otherSpace = given(evolveCredential, undefined, [created], {
      spaceId: 'space-b',
    });
    for (const credential of [revokedState, undefined, otherSpace]) {
      expect(
        decideIssuePublicToken(command(), credential, { ttlSeconds: 900, catalog: {} }),
      ).toEqual({
        ok: false,
        refusal: 'credential_inactive',
        events: [],
      });
    }
  });
});

describe('token: revoke (RFC 7009)', () => {
  const issued = decideIssuePrivateToken(
    { ...issuance(), audience: 'storefront.test' },
    active,
    policy,
  );
  if (!issued.ok) throw new Error('expected a token');
  const token: Token = given(evolveToken, undefined, [issued.events[0]!]);
  const revoke = (clientId: string, now = NOW) => ({ clientId, now, eventId: nextId(), metadata });

  it('given its own live token, then token-revoked, and the state is revoked', () => {
    const { events } = decideRevokeToken(revoke('ci_1'), token);
    expect(events.map((event) => event.data)).toEqual([
      {
        client_id: 'ci_1',
        jti: token.jti,
        token_kind: 'private',
        expires_at: '2026-11-22T01:00:00.000Z',
        revoked_by: 'client:ci_1',
      },
    ]);
    const revoked = given(evolveToken, undefined, [issued.events[0]!, ...events]);
    expect(revoked.revokedAt).toEqual(expect.any(Number));
  });

  it("given another client's token, an expired one or a revoked one, then nothing is recorded", () => {
    const nothing = { ok: true, events: [], facts: undefined };
    expect(decideRevokeToken(revoke('ci_2'), token)).toEqual(nothing);
    expect(decideRevokeToken(revoke('ci_1', NOW + 3600_000), token)).toEqual(nothing);
    const { events } = decideRevokeToken(revoke('ci_1'), token);
    const revoked = given(evolveToken, undefined, [issued.events[0]!, ...events]);
    expect(decideRevokeToken(revoke('ci_1'), revoked)).toEqual(nothing);
  });
});
