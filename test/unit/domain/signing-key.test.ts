import { describe, expect, it } from 'vitest';
import {
  decideEndSwitchOver,
  decideFirstKey,
  decideReseal,
  decideRetireKey,
  decideRotateKey,
  type KeyCommand,
} from '../../../src/domain/signing-key/decide.js';
import { evolveKeyRing } from '../../../src/domain/signing-key/evolve.js';
import { publishedKeys, signingKeys, type KeyRing } from '../../../src/domain/signing-key/state.js';
import { given, sequentialIds } from '../../support/given.js';

const NOW = Date.parse('2026-11-22T00:00:00Z');
const nextId = sequentialIds();
const command = (kid: string, now = NOW): KeyCommand => ({
  actor: 'operator:root',
  origin: 'cli@host',
  requestId: null,
  now,
  newKey: { kid, alg: 'EdDSA' },
  newEventId: nextId,
});
const EMPTY: KeyRing = [];
const firstRing = () => given(evolveKeyRing, EMPTY, decideFirstKey(command('k1'), EMPTY).events);

describe('signing keys: the first key', () => {
  it('given no key, then one is generated that signs at once, recorded with who did it', () => {
    const { events } = decideFirstKey(command('k1'), EMPTY);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'signing-key-generated',
      data: {
        kid: 'k1',
        alg: 'EdDSA',
        activates_at: new Date(NOW).toISOString(),
        reason: 'first_key',
      },
      metadata: { actor: 'operator:root', client_ip: 'cli@host' },
    });
    expect(signingKeys(given(evolveKeyRing, EMPTY, events), NOW).map((k) => k.kid)).toEqual(['k1']);
  });

  it('given a published key, then nothing', () => {
    expect(decideFirstKey(command('k2'), firstRing())).toEqual({
      ok: true,
      events: [],
      facts: undefined,
    });
  });

  it('given only keys that have left the JWKS, then a new first key', () => {
    const ring = firstRing();
    const retired = decideRetireKey({ ...command('k2'), kid: 'k1' }, ring);
    if (!retired.ok) throw new Error('expected a retirement');
    // The replacement retired too: nothing published is left an hour later.
    const gone = given(evolveKeyRing, ring, retired.events).map((key) => ({
      ...key,
      retiredAt: NOW,
    }));
    expect(decideFirstKey(command('k3', NOW + 1), gone).events).toHaveLength(1);
  });
});

describe('signing keys: rotation', () => {
  it('given an active key, then the new key is published now, signs later, and the old one retires after the longest token life', () => {
    const decision = decideRotateKey(
      { ...command('k2'), activateInSeconds: 360, retireAfterSeconds: 3600 },
      firstRing(),
    );
    if (!decision.ok) throw new Error('a rotation is never refused');
    const { events } = decision;
    // The schedule is the decision's: the handler repeats none of it.
    expect(decision.facts).toEqual({
      activatesAt: new Date(NOW + 360_000),
      retiresOthersAt: new Date(NOW + 3_960_000),
    });
    expect(events.map((event) => [event.type, event.data])).toEqual([
      [
        'signing-key-retired',
        { kid: 'k1', retired_at: new Date(NOW + 3_960_000).toISOString(), reason: 'rotated' },
      ],
      [
        'signing-key-generated',
        {
          kid: 'k2',
          alg: 'EdDSA',
          activates_at: new Date(NOW + 360_000).toISOString(),
          reason: 'rotation',
        },
      ],
    ]);
    const ring = given(evolveKeyRing, firstRing(), events);
    expect(publishedKeys(ring, NOW).map((k) => k.kid)).toEqual(['k1', 'k2']);
    expect(publishedKeys(ring, NOW + 3_960_000).map((k) => k.kid)).toEqual(['k2']);
  });
});

describe('signing keys: withdrawal of a compromised key', () => {
  it('given the only signing key, then it retires now and a replacement signs at once', () => {
    const decision = decideRetireKey({ ...command('k2'), kid: 'k1' }, firstRing());
    expect(decision.ok && decision.events.map((event) => event.data)).toEqual([
      { kid: 'k1', retired_at: new Date(NOW).toISOString(), reason: 'compromised' },
      {
        kid: 'k2',
        alg: 'EdDSA',
        activates_at: new Date(NOW).toISOString(),
        reason: 'replaces_retired',
      },
    ]);
  });

  it('given another key that signs, then no replacement', () => {
    const ring = given(evolveKeyRing, firstRing(), decideFirstKey(command('k2'), EMPTY).events);
    const decision = decideRetireKey({ ...command('k3'), kid: 'k1' }, ring);
    expect(decision.ok && decision.events.map((event) => event.type)).toEqual([
      'signing-key-retired',
    ]);
  });

  it('given an unknown key, or one already gone, then not found and nothing recorded', () => {
    expect(decideRetireKey({ ...command('k2'), kid: 'nope' }, firstRing())).toEqual({
      ok: false,
      refusal: 'not_found',
      events: [],
    });
    const gone = firstRing().map((key) => ({ ...key, retiredAt: NOW - 1 }));
    expect(decideRetireKey({ ...command('k2'), kid: 'k1' }, gone)).toEqual({
      ok: false,
      refusal: 'not_found',
      events: [],
    });
  });

  it('given a key whose rotation retires it later, then it can still be withdrawn now', () => {
    const ring = firstRing().map((key) => ({ ...key, retiredAt: NOW + 60_000 }));
    expect(decideRetireKey({ ...command('k2'), kid: 'k1' }, ring).ok).toBe(true);
  });
});

describe('signing keys: sealed anew under a key-encryption key', () => {
  const reseal = (kids: readonly string[]) =>
    decideReseal({
      actor: 'operator:root',
      origin: 'cli@host',
      requestId: null,
      eventId: 'e-reseal',
      kek: 'kek-2',
      reason: 'rewrapped',
      kids,
    });

  it('given keys sealed under another key, then one event names them and the new key', () => {
    expect(reseal(['k1', 'k2'])).toEqual({
      ok: true,
      facts: undefined,
      events: [
        {
          eventId: 'e-reseal',
          type: 'signing-keys-resealed',
          data: { kids: ['k1', 'k2'], kek: 'kek-2', reason: 'rewrapped' },
          metadata: {
            actor: 'operator:root',
            request_id: 'e-reseal',
            client_ip: 'cli@host',
            user_agent: null,
          },
        },
      ],
    });
  });

  it('given nothing to reseal, then nothing is recorded', () => {
    expect(reseal([])).toEqual({ ok: true, events: [], facts: undefined });
  });
});

describe("signing keys: ending a space's switch-over", () => {
  const end = {
    actor: 'admin:ops',
    origin: '10.0.0.1',
    requestId: 'request-1',
    newEventId: nextId,
    spaceId: 'space-1',
  };
  it('given a space with its own ring, then one event naming who ended it and the request that asked, and nothing more once ended', () => {
    const ring = firstRing();
    const decided = decideEndSwitchOver(end, { ring, ended: false });
    expect(decided).toMatchObject({
      ok: true,
      events: [
        {
          type: 'space-switch-over-ended',
          data: { space_id: 'space-1' },
          metadata: { actor: 'admin:ops', client_ip: '10.0.0.1', request_id: 'request-1' },
        },
      ],
    });
    expect(decideEndSwitchOver(end, { ring, ended: true })).toMatchObject({ ok: true, events: [] });
  });

  it('given a space on the shared keys, then refused: it has no switch-over to end', () => {
    expect(decideEndSwitchOver(end, { ring: EMPTY, ended: false })).toMatchObject({
      ok: false,
      refusal: 'not_found',
    });
  });
});
