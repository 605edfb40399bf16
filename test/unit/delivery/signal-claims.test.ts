import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '#event-log/types.js';
import { signalClaims, verificationClaims } from '../../../src/delivery/signal-tokens.js';
import { EVENT_CATALOG } from '../../../src/domain/events.js';
import { SIGNAL_TYPES, VERIFICATION_URI } from '../../../src/domain/security-signals.js';
import { exampleEvents } from '../../support/example-events.js';

const SPACE = 's1';
const stream = { streamId: 'snk_stream', spaceId: SPACE, issuer: 'https://ta.test/spaces/s1' };
const examples = exampleEvents('ci_a') as Record<string, Record<string, unknown>>;
const at = new Date(Date.UTC(2026, 10, 30, 12));

/** A recorded event of `type` in `spaceId`, with `data` over its example. */
const recorded = (type: string, data: Record<string, unknown> = {}, spaceId = SPACE) =>
  ({
    globalPosition: 7,
    transactionId: '9',
    spaceId,
    streamId: `stream-${type}`,
    streamPosition: 1,
    eventId: `ev-${type}`,
    type,
    schemaVersion: 1,
    data: { ...examples[type], ...data },
    metadata: { actor: 'user:u1', request_id: 'req-1', client_ip: '127.0.0.1' },
    recordedAt: at,
  }) satisfies RecordedEvent;

const eventsOf = (claims: Record<string, unknown> | undefined) =>
  claims?.events as Record<string, Record<string, unknown>> | undefined;

/** The one SET (or none) an event gives a stream: most give at most one. */
const one = (...args: Parameters<typeof signalClaims>) => {
  const sets = signalClaims(...args);
  expect(sets.length).toBeLessThanOrEqual(1);
  return sets[0];
};

describe('the Security Event Token an event gives a stream (src/delivery/signal-tokens.ts)', () => {
  it('given a token revoked: session-revoked about its jti, with the SET claims SSF asks for', () => {
    const claims = one(stream, recorded('token-revoked', { jti: 'tok-1' }));
    expect(claims).toEqual({
      iss: stream.issuer,
      aud: 'snk_stream',
      jti: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      iat: at.getTime() / 1000,
      txn: 'req-1',
      sub_id: { format: 'opaque', id: 'tok-1' },
      events: { [SIGNAL_TYPES['session-revoked']]: { event_timestamp: at.getTime() / 1000 } },
    });
    // The same event makes the same SET for the stream (a receiver drops a repeat by jti)...
    expect(one(stream, recorded('token-revoked', { jti: 'tok-1' }))).toEqual(claims);
    // ...and another for another stream.
    const other = one({ ...stream, streamId: 'snk_other' }, recorded('token-revoked'));
    expect(other?.jti).not.toBe(claims?.jti);
  });

  it("given a credential's secret rotated, keys changed or whole revoked: credential-change about the client", () => {
    const changes = ['credential-secret-rotated', 'credential-keys-changed', 'credential-revoked'];
    const fields = changes.map(
      (type) => eventsOf(one(stream, recorded(type)))?.[SIGNAL_TYPES['credential-change']],
    );
    expect(fields).toEqual([
      expect.objectContaining({ credential_type: 'client_secret', change_type: 'update' }),
      expect.objectContaining({ credential_type: 'client_jwks', change_type: 'update' }),
      expect.objectContaining({ credential_type: 'client_credential', change_type: 'revoke' }),
    ]);
    expect(one(stream, recorded('credential-revoked'))?.sub_id).toEqual({
      format: 'opaque',
      id: 'ci_a',
    });
  });

  it('given scopes narrowed: token-claims-change with the scope left; widened: nothing', () => {
    const narrowed = recorded('credential-scopes-changed', { scopes: ['a:read'], removed: ['b'] });
    expect(eventsOf(one(stream, narrowed))).toEqual({
      [SIGNAL_TYPES['token-claims-change']]: {
        event_timestamp: at.getTime() / 1000,
        claims: { scope: 'a:read' },
      },
    });
    const widened = recorded('credential-scopes-changed', { scopes: ['a:read', 'b'], removed: [] });
    expect(one(stream, widened)).toBeUndefined();
  });

  it('given a stream asking for credential-change only: a revoked token gives it nothing', () => {
    const picky = { ...stream, events: [SIGNAL_TYPES['credential-change']] };
    expect(one(picky, recorded('token-revoked'))).toBeUndefined();
    expect(one(picky, recorded('credential-revoked'))).toBeDefined();
  });

  it("given another space's event, or an event that is no signal: nothing", () => {
    expect(one(stream, recorded('token-revoked', {}, 'other-space'))).toBeUndefined();
    expect(one(stream, recorded('private-token-issued'))).toBeUndefined();
    expect(one(stream, recorded('no-such-type'))).toBeUndefined();
  });

  it("given a receiver's verification request: a verification SET with its state, to that stream alone, asked for or not", () => {
    const asked = recorded('stream-verification-requested', { sink_id: 'snk_stream', state: 's' });
    const claims = one({ ...stream, events: [] }, asked);
    expect(claims?.sub_id).toEqual({ format: 'opaque', id: 'snk_stream' });
    expect(eventsOf(claims)?.[VERIFICATION_URI]).toMatchObject({ state: 's' });
    expect(one({ ...stream, streamId: 'snk_other' }, asked)).toBeUndefined();
  });

  it('declares signals for exactly these event types', () => {
    const signalling = Object.entries(EVENT_CATALOG)
      .filter(([, declaration]) => declaration.signal !== null)
      .map(([type]) => type)
      .sort();
    expect(signalling).toEqual([
      'credential-keys-changed',
      'credential-revoked',
      'credential-scopes-changed',
      'credential-secret-rotated',
      'stream-verification-requested',
      'token-revoked',
    ]);
  });

  it("given a paused stream's probe: SSF's verification event about the stream, no state", () => {
    const claims = verificationClaims(stream, at);
    expect(claims.sub_id).toEqual({ format: 'opaque', id: 'snk_stream' });
    expect(claims.events).toEqual({ [VERIFICATION_URI]: {} });
  });

  it('given a credential revoked as compromised: credential-change and RISC credential-compromise, each its own jti', () => {
    const compromised = recorded('credential-revoked', { compromised: true, reason: 'leaked' });
    const sets = signalClaims(stream, compromised);
    expect(sets.map((set) => eventsOf(set))).toEqual([
      {
        [SIGNAL_TYPES['credential-change']]: expect.objectContaining({ change_type: 'revoke' }),
      },
      {
        [SIGNAL_TYPES['credential-compromise']]: {
          event_timestamp: at.getTime() / 1000,
          // The admin's reason stays in the trail, not with every receiver.
          credential_type: 'client_credential',
        },
      },
    ]);
    expect(new Set(sets.map((set) => set.jti)).size).toBe(2);
    // The first keeps the jti a plain revocation's SET has: nothing sent before changes.
    expect(sets[0]!.jti).toBe(one(stream, recorded('credential-revoked'))!.jti);
    expect(sets.map((set) => set.sub_id)).toEqual([
      { format: 'opaque', id: 'ci_a' },
      { format: 'opaque', id: 'ci_a' },
    ]);
    // A stream asking for RISC alone gets that one.
    const risc = { ...stream, events: [SIGNAL_TYPES['credential-compromise']] };
    expect(signalClaims(risc, compromised).map((set) => Object.keys(eventsOf(set)!))).toEqual([
      [SIGNAL_TYPES['credential-compromise']],
    ]);
  });
});
