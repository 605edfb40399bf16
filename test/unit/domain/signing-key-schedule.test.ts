import { describe, expect, it } from 'vitest';
import { decideFirstKey, type KeyCommand } from '../../../src/domain/signing-key/decide.js';
import { evolveKeyRing } from '../../../src/domain/signing-key/evolve.js';
import {
  decideScheduledRotation,
  type RotationPolicy,
} from '../../../src/domain/signing-key/schedule.js';
import type { KeyRing } from '../../../src/domain/signing-key/state.js';
import { given, sequentialIds } from '../../support/given.js';

const START = Date.parse('2026-11-22T00:00:00Z');
const HOUR = 3_600_000;
const nextId = sequentialIds();
const policy: RotationPolicy = {
  signingLifetimeSeconds: 24 * 3600,
  publishAheadSeconds: 3600,
  retireAfterSeconds: 2 * 3600,
};
const command = (kid: string, now: number): KeyCommand & RotationPolicy => ({
  actor: 'service:rotation',
  origin: 'scheduler',
  requestId: null,
  now,
  newKey: { kid, alg: 'EdDSA' },
  newEventId: nextId,
  ...policy,
});
const EMPTY: KeyRing = [];
// k1 signs from START: it is due at START + 24 h - 1 h (its successor published an hour ahead).
const firstRing = () =>
  given(evolveKeyRing, EMPTY, decideFirstKey(command('k1', START), EMPTY).events, { at: START });
const DUE = START + 23 * HOUR;

describe('signing keys: scheduled rotation', () => {
  it('given a key that has signed for its lifetime less the margin, then its successor is published to sign an hour later', () => {
    const decision = decideScheduledRotation(command('k2', DUE), firstRing());
    expect(decision.facts).toEqual({
      activatesAt: new Date(DUE + HOUR),
      retiresOthersAt: new Date(DUE + 3 * HOUR),
    });
    expect(decision.events.map((event) => [event.type, event.data.kid])).toEqual([
      ['signing-key-retired', 'k1'],
      ['signing-key-generated', 'k2'],
    ]);
  });

  it('given a key not yet due, then nothing', () => {
    expect(decideScheduledRotation(command('k2', DUE - 1), firstRing())).toEqual({
      ok: true,
      events: [],
      facts: undefined,
    });
  });

  it('given a successor already published and waiting, then nothing (replicas asking together rotate once)', () => {
    const rotated = decideScheduledRotation(command('k2', DUE), firstRing());
    const ring = given(evolveKeyRing, firstRing(), rotated.events, { at: DUE });
    expect(decideScheduledRotation(command('k3', DUE + 1), ring).events).toEqual([]);
  });

  it('given no signing key, then nothing: the first key is another decision', () => {
    expect(decideScheduledRotation(command('k1', DUE), EMPTY).events).toEqual([]);
  });
});
