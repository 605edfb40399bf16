import { describe, expect, it } from 'vitest';
import {
  decideFirstKey,
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
  now,
  newKey: { kid, alg: 'EdDSA' },
  newEventId: nextId,
});
const EMPTY: KeyRing = [];
const firstRing = () => given(evolveKeyRing, EMPTY, decideFirstKey(command('k1'), EMPTY));

describe('signing keys: the first key', () => {
  it('given no key, then one is generated that signs at once, recorded with who did it', () => {
    const events = decideFirstKey(command('k1'), EMPTY);
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
    expect(decideFirstKey(command('k2'), firstRing())).toEqual([]);
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
    expect(decideFirstKey(command('k3', NOW + 1), gone)).toHaveLength(1);
  });
});

describe('signing keys: rotation', () => {
  it('given an active key, then the new key is published now, signs later, and the old one retires after the longest token life', () => {
    const events = decideRotateKey(
      { ...command('k2'), activateInSeconds: 360, retireAfterSeconds: 3600 },
      firstRing(),
    );
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
    const ring = given(evolveKeyRing, firstRing(), decideFirstKey(command('k2'), EMPTY));
    const decision = decideRetireKey({ ...command('k3'), kid: 'k1' }, ring);
    expect(decision.ok && decision.events.map((event) => event.type)).toEqual([
      'signing-key-retired',
    ]);
  });

  it('given an unknown key, or one already gone, then not found and nothing recorded', () => {
    expect(decideRetireKey({ ...command('k2'), kid: 'nope' }, firstRing())).toEqual({ ok: false });
    const gone = firstRing().map((key) => ({ ...key, retiredAt: NOW - 1 }));
    expect(decideRetireKey({ ...command('k2'), kid: 'k1' }, gone)).toEqual({ ok: false });
  });

  it('given a key whose rotation retires it later, then it can still be withdrawn now', () => {
    const ring = firstRing().map((key) => ({ ...key, retiredAt: NOW + 60_000 }));
    expect(decideRetireKey({ ...command('k2'), kid: 'k1' }, ring).ok).toBe(true);
  });
});
