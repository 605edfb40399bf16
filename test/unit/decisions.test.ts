import { describe, expect, it } from 'vitest';
import { decideIssuePrivateToken, decideIssuePublicToken } from '../../src/domain/decisions.js';
import type { CredentialView } from '../../src/domain/credential-view.js';

const clock = { now: () => Date.parse('2026-11-22T00:00:00Z') };
let n = 0;
const ids = {
  eventId: () => `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  tokenId: () => `jti-${++n}`,
};
const metadata = {
  actor: 'client:ci_1',
  request_id: 'r',
  client_ip: '127.0.0.1',
  user_agent: null,
};
const active: CredentialView = {
  clientId: 'ci_1',
  spaceId: 'space-a',
  status: 'active',
  secretHash: Buffer.alloc(32),
  previousSecretHash: null,
  previousSecretExpiresAt: null,
  revokedAt: null,
  version: 1,
  rateLimitPerMinute: null,
};
const policy = { audiences: ['storefront.test'], ttlSeconds: 3600 };

describe('decideIssuePrivateToken', () => {
  it('issues for a matching secret and a known audience, expiring after the TTL', () => {
    const decision = decideIssuePrivateToken(
      { clientId: 'ci_1', audience: 'storefront.test', metadata },
      active,
      true,
      policy,
      clock,
      ids,
    );
    expect(decision.ok).toBe(true);
    if (!decision.ok) return;
    expect(decision.expiresAt - decision.issuedAt).toBe(3600);
    expect(decision.event).toMatchObject({
      type: 'private-token-issued',
      data: {
        client_id: 'ci_1',
        audience: 'storefront.test',
        jti: decision.jti,
        expires_at: '2026-11-22T01:00:00.000Z',
      },
    });
  });

  it('refuses an unknown client without recording anything', () => {
    expect(
      decideIssuePrivateToken(
        { clientId: 'ci_x', audience: 'storefront.test', metadata },
        undefined,
        false,
        policy,
        clock,
        ids,
      ),
    ).toEqual({ ok: false, error: 'invalid_client' });
  });

  it('refuses a wrong secret and records the failure without the secret', () => {
    const decision = decideIssuePrivateToken(
      { clientId: 'ci_1', audience: 'storefront.test', metadata },
      active,
      false,
      policy,
      clock,
      ids,
    );
    expect(decision).toMatchObject({
      ok: false,
      error: 'invalid_client',
      failure: {
        type: 'client-authentication-failed',
        data: { client_id: 'ci_1', reason: 'secret_mismatch' },
      },
    });
  });

  it('refuses a revoked credential even with the right secret', () => {
    const decision = decideIssuePrivateToken(
      { clientId: 'ci_1', audience: 'storefront.test', metadata },
      { ...active, status: 'revoked' },
      true,
      policy,
      clock,
      ids,
    );
    expect(decision).toMatchObject({
      ok: false,
      error: 'invalid_client',
      failure: { data: { reason: 'credential_revoked' } },
    });
  });

  it('refuses an audience that is not configured (invalid_target) after authenticating', () => {
    expect(
      decideIssuePrivateToken(
        { clientId: 'ci_1', audience: 'evil', metadata },
        active,
        true,
        policy,
        clock,
        ids,
      ),
    ).toEqual({ ok: false, error: 'invalid_target' });
  });
});

describe('decideIssuePublicToken', () => {
  const now = clock.now() / 1000;
  const privateToken = {
    clientId: 'ci_1',
    spaceId: 'space-a',
    audience: 'storefront.test',
    jti: 'p-1',
    expiresAt: now + 3600,
  };
  const command = { spaceId: 'space-a', customerId: 'c', segmentId: 's', metadata };

  it('issues a token that never outlives its private token', () => {
    const decision = decideIssuePublicToken(
      command,
      { ...privateToken, expiresAt: now + 60 },
      active,
      { ttlSeconds: 900 },
      clock,
      ids,
    );
    expect(decision.ok && decision.expiresAt - decision.issuedAt).toBe(60);
    expect(decision.ok && decision.event.data).toMatchObject({
      parent_jti: 'p-1',
      customer_id: 'c',
      segment_id: 's',
    });
  });

  it('refuses another space and an inactive credential', () => {
    expect(
      decideIssuePublicToken(
        { ...command, spaceId: 'space-b' },
        privateToken,
        active,
        { ttlSeconds: 900 },
        clock,
        ids,
      ),
    ).toEqual({ ok: false, error: 'space_mismatch' });
    expect(
      decideIssuePublicToken(
        command,
        privateToken,
        { ...active, status: 'revoked' },
        { ttlSeconds: 900 },
        clock,
        ids,
      ),
    ).toEqual({ ok: false, error: 'credential_inactive' });
    expect(
      decideIssuePublicToken(command, privateToken, undefined, { ttlSeconds: 900 }, clock, ids),
    ).toEqual({ ok: false, error: 'credential_inactive' });
  });
});

describe('uuidv7', () => {
  it('is a version-7 RFC 9562 UUID that sorts by time and does not repeat', async () => {
    const { uuidv7 } = await import('../../src/domain/ports.js');
    const ids = Array.from({ length: 1000 }, (_, i) => uuidv7(1_800_000_000_000 + i));
    for (const id of ids)
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 10_000 }, () => uuidv7(1)))).toHaveProperty('size', 10_000);
    expect(uuidv7(0x0123456789ab).startsWith('01234567-89ab-7')).toBe(true);
  });
});
