import { describe, expect, it } from 'vitest';
import {
  decideChangeKeys,
  decideChangeRateLimit,
  decideCreateCredential,
  decideRecordSecretReplay,
  decideRevokeCredential,
  decideRotateSecret,
} from '../../../src/domain/credential/decide.js';
import { evolveCredential } from '../../../src/domain/credential/evolve.js';
import { acceptedSecretHashes } from '../../../src/domain/credential/state.js';
import { credentialCreated, given, metadata, sequentialIds } from '../../support/given.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');
const nextId = sequentialIds();
const hash = (byte: number) => Buffer.alloc(32, byte).toString('base64url');
const target = { spaceId: 'space-a', clientId: 'ci_1', actor: 'user:alice', metadata };

const created = (rateLimitPerMinute: number | null = null) =>
  credentialCreated(nextId(), { secretHash: hash(1), rateLimitPerMinute });
const rotated = (newSecretHash: string, now = NOW, overlapSeconds = 3600) => {
  const decision = decideRotateSecret(
    { ...target, eventId: nextId(), now, newSecretHash, overlapSeconds },
    given(evolveCredential, undefined, [created()]),
  );
  if (!decision.ok) throw new Error('expected a rotation');
  return decision.events[0]!;
};
const revoked = () => {
  const decision = decideRevokeCredential(
    { ...target, eventId: nextId(), reason: 'leaked' },
    given(evolveCredential, undefined, [created()]),
  );
  if (!decision.ok) throw new Error('expected a revocation');
  return decision.events[0]!;
};

describe('credential: create', () => {
  it('when created, then credential-created carries the hash (never a secret) and the creator', () => {
    const event = created(120);
    expect(event).toMatchObject({
      type: 'credential-created',
      data: {
        client_id: 'ci_1',
        secret_hash: hash(1),
        created_by: 'alice',
        rate_limit_per_minute: 120,
      },
    });
    const state = given(evolveCredential, undefined, [event]);
    expect(state).toMatchObject({ status: 'active', spaceId: 'space-a', version: 1 });
    expect(state.rateLimitPerMinute).toBe(120);
  });

  it('when created without a rate limit, then the event has none (the default applies)', () => {
    expect(created().data).not.toHaveProperty('rate_limit_per_minute');
  });
});

describe('credential: rotate the secret', () => {
  it('given an active credential, then the new secret works at once and the old one until the overlap ends', () => {
    const event = rotated(hash(2), NOW, 600);
    expect(event.data).toMatchObject({
      secret_hash: hash(2),
      overlap_seconds: 600,
      previous_secret_expires_at: new Date(NOW + 600_000).toISOString(),
      rotated_by: 'user:alice',
    });
    const state = given(evolveCredential, undefined, [created(), event]);
    const [current, previous] = acceptedSecretHashes(state, NOW + 599_000);
    expect(current?.toString('base64url')).toBe(hash(2));
    expect(previous?.toString('base64url')).toBe(hash(1));
    expect(acceptedSecretHashes(state, NOW + 600_000)[1]).toBeNull();
  });

  it('given a rotation still overlapping, when rotated again, then the oldest secret ends at once: never three', () => {
    const state = given(evolveCredential, undefined, [
      created(),
      rotated(hash(2)),
      rotated(hash(3)),
    ]);
    const accepted = acceptedSecretHashes(state, NOW).map((b) => b?.toString('base64url'));
    expect(accepted).toEqual([hash(3), hash(2)]);
  });

  it('given a revoked credential, then the rotation is refused as revoked', () => {
    const state = given(evolveCredential, undefined, [created(), revoked()]);
    expect(
      decideRotateSecret(
        { ...target, eventId: nextId(), now: NOW, newSecretHash: hash(9), overlapSeconds: 0 },
        state,
      ),
    ).toEqual({ ok: false, refusal: 'revoked', events: [] });
  });

  it("given another space's credential, then it is not found (never revealed)", () => {
    const state = given(evolveCredential, undefined, [created()], { spaceId: 'space-b' });
    expect(
      decideRotateSecret(
        { ...target, eventId: nextId(), now: NOW, newSecretHash: hash(9), overlapSeconds: 0 },
        state,
      ),
    ).toEqual({ ok: false, refusal: 'not_found', events: [] });
  });
});

describe('credential: revoke', () => {
  it('given an active credential, then credential-revoked; the state is revoked with no overlap secret', () => {
    const event = revoked();
    expect(event.data).toEqual({ client_id: 'ci_1', reason: 'leaked', revoked_by: 'user:alice' });
    const state = given(evolveCredential, undefined, [created(), rotated(hash(2)), event]);
    expect(state).toMatchObject({ status: 'revoked', revokedReason: 'leaked', version: 3 });
    expect(state.revokedAt).toEqual(expect.any(Number));
    expect(acceptedSecretHashes(state, NOW)[1]).toBeNull();
  });

  it('given an active credential, when revoked as compromised, then credential-revoked says so (and only then)', () => {
    const decision = decideRevokeCredential(
      { ...target, eventId: nextId(), reason: 'in a public repo', compromised: true },
      given(evolveCredential, undefined, [created()]),
    );
    expect(decision.ok && decision.events[0]!.data).toEqual({
      client_id: 'ci_1',
      reason: 'in a public repo',
      revoked_by: 'user:alice',
      compromised: true,
    });
    const plain = decideRevokeCredential(
      { ...target, eventId: nextId(), reason: null, compromised: false },
      given(evolveCredential, undefined, [created()]),
    );
    expect(plain.ok && plain.events[0]!.data).not.toHaveProperty('compromised');
  });

  it('given a revoked credential, when revoked again, then nothing is recorded', () => {
    const state = given(evolveCredential, undefined, [created(), revoked()]);
    expect(decideRevokeCredential({ ...target, eventId: nextId(), reason: null }, state)).toEqual({
      ok: true,
      events: [],
    });
  });

  it('given no credential, then not found', () => {
    expect(
      decideRevokeCredential({ ...target, eventId: nextId(), reason: null }, undefined),
    ).toEqual({ ok: false, refusal: 'not_found', events: [] });
  });
});

describe('credential: change the rate limit', () => {
  it('given a default limit, when set, then credential-rate-limit-changed and the state holds it', () => {
    const decision = decideChangeRateLimit(
      { ...target, eventId: nextId(), rateLimitPerMinute: 300, spaceCeiling: 1000 },
      given(evolveCredential, undefined, [created()]),
    );
    expect(decision.ok && decision.events[0]!.data).toEqual({
      client_id: 'ci_1',
      rate_limit_per_minute: 300,
      changed_by: 'user:alice',
    });
    if (!decision.ok) return;
    const state = given(evolveCredential, undefined, [created(), ...decision.events]);
    expect(state.rateLimitPerMinute).toBe(300);
  });

  it('given the same limit, then nothing is recorded', () => {
    const state = given(evolveCredential, undefined, [created(300)]);
    expect(
      decideChangeRateLimit(
        { ...target, eventId: nextId(), rateLimitPerMinute: 300, spaceCeiling: 1000 },
        state,
      ),
    ).toEqual({ ok: true, events: [] });
  });

  it("given a limit above the space's ceiling, then over_space_ceiling, nothing recorded", () => {
    const state = given(evolveCredential, undefined, [created()]);
    const command = { ...target, eventId: nextId(), rateLimitPerMinute: 1001, spaceCeiling: 1000 };
    expect(decideChangeRateLimit(command, state)).toEqual({
      ok: false,
      refusal: 'over_space_ceiling',
      events: [],
    });
    expect(decideChangeRateLimit({ ...command, rateLimitPerMinute: null }, state).ok).toBe(true);
  });

  it('given a revoked credential, then refused as revoked', () => {
    const state = given(evolveCredential, undefined, [created(), revoked()]);
    expect(
      decideChangeRateLimit(
        { ...target, eventId: nextId(), rateLimitPerMinute: 5, spaceCeiling: 1000 },
        state,
      ),
    ).toEqual({ ok: false, refusal: 'revoked', events: [] });
  });
});

describe('credential: created with its own limit', () => {
  it("when the limit is above the space's ceiling, then over_space_ceiling and no credential", () => {
    const decision = decideCreateCredential({
      eventId: nextId(),
      metadata,
      clientId: 'ci_9',
      secretHash: hash(9),
      name: 'n',
      description: 'd',
      userSubject: 'alice',
      loginIssuer: 'https://login.test',
      catalog: {},
      rateLimitPerMinute: 7,
      spaceCeiling: 6,
    });
    expect(decision).toEqual({ ok: false, refusal: 'over_space_ceiling', events: [] });
  });
});

describe('credential: a kept rotation answer shown again', () => {
  it('when a retry gets a kept answer, then credential-secret-replayed names the key hash and to whom', () => {
    const decision = decideRecordSecretReplay({
      ...target,
      eventId: 'e-replay',
      idempotencyKeyHash: hash(7),
    });
    expect(decision).toEqual({
      ok: true,
      facts: undefined,
      events: [
        {
          eventId: 'e-replay',
          type: 'credential-secret-replayed',
          data: { client_id: 'ci_1', idempotency_key_sha256: hash(7), replayed_to: 'user:alice' },
          metadata,
        },
      ],
    });
  });
});

describe("credential: a secretless client's keys replaced", () => {
  const jwks = (x: string) => ({ keys: [{ kty: 'OKP' as const, crv: 'Ed25519', x }] });
  const keyed = () => {
    const decision = decideCreateCredential({
      eventId: nextId(),
      metadata,
      clientId: 'ci_1',
      jwks: jwks('11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo'),
      name: 'server',
      description: 'secretless',
      userSubject: 'alice',
      loginIssuer: 'https://login.test',
      catalog: {},
      spaceCeiling: 120_000,
    });
    if (!decision.ok) throw new Error('a creation is never refused');
    return given(evolveCredential, undefined, decision.events);
  };
  const next = jwks('Xx4_Gq5Z1J7uPq9ZQ7s3mO3v1k5G4nH0bFz8cWy2aRk');

  it('given a keyed credential, then credential-keys-changed holds the whole new set and who changed it', () => {
    const decision = decideChangeKeys({ ...target, eventId: nextId(), jwks: next }, keyed());
    expect(decision.ok && decision.events.map((event) => event.data)).toEqual([
      { client_id: 'ci_1', jwks: next, changed_by: 'user:alice' },
    ]);
    if (!decision.ok) return;
    expect(given(evolveCredential, keyed(), decision.events).jwks).toEqual(next);
  });

  it('given a credential with a secret, then wrong_method; another space, then not_found', () => {
    const withSecret = given(evolveCredential, undefined, [created()]);
    expect(decideChangeKeys({ ...target, eventId: nextId(), jwks: next }, withSecret)).toEqual({
      ok: false,
      refusal: 'wrong_method',
      events: [],
    });
    expect(
      decideChangeKeys({ ...target, spaceId: 'space-b', eventId: nextId(), jwks: next }, keyed()),
    ).toEqual({ ok: false, refusal: 'not_found', events: [] });
  });
});
