import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/canonical-json.js';
import { chainHash, GENESIS_HASH } from '../src/check/chain-link.js';
import type { RecordedEvent } from '../src/recorded-event.js';

describe('canonicalJson (RFC 8785)', () => {
  it('sorts keys by code unit, drops whitespace, keeps arrays in order', () => {
    expect(canonicalJson({ b: 1, a: [3, { d: null, c: 'x' }], é: true, A: false })).toBe(
      '{"A":false,"a":[3,{"c":"x","d":null}],"b":1,"é":true}',
    );
  });

  it('serialises numbers as ECMAScript does (the RFC 8785 examples)', () => {
    // eslint-disable-next-line no-loss-of-precision -- the RFC 8785 example, on purpose
    expect(canonicalJson([1e21, 1e-7, 0.000001, 333333333.33333329, -0])).toBe(
      '[1e+21,1e-7,0.000001,333333333.3333333,0]',
    );
  });

  it('escapes strings minimally', () => {
    expect(canonicalJson('\u0007\n"\\/€')).toBe('"\\u0007\\n\\"\\\\/€"');
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson(undefined)).toThrow();
  });
});

describe('chainHash', () => {
  const event: RecordedEvent = {
    globalPosition: 1,
    transactionId: '700',
    spaceId: 's',
    streamId: 'x',
    streamPosition: 1,
    eventId: '00000000-0000-4000-8000-000000000000',
    type: 't',
    schemaVersion: 1,
    data: { b: 2, a: 1 },
    metadata: {},
    recordedAt: new Date('2026-01-01T00:00:00.000Z'),
  };

  it('is stable under key order and changes with any byte of the event or the previous hash', () => {
    const base = chainHash(GENESIS_HASH, event);
    expect(chainHash(GENESIS_HASH, { ...event, data: { a: 1, b: 2 } })).toEqual(base);
    expect(chainHash(GENESIS_HASH, { ...event, data: { a: 1, b: 3 } })).not.toEqual(base);
    expect(
      chainHash(GENESIS_HASH, { ...event, recordedAt: new Date('2026-01-01T00:00:00.001Z') }),
    ).not.toEqual(base);
    expect(chainHash(Buffer.alloc(32, 1), event)).not.toEqual(base);
  });

  it('quotes every string as JSON.stringify does, lone surrogates and controls included, and sorts objects of any size', () => {
    for (const text of [
      'plain',
      'a"b',
      'back\\slash',
      'tab\t',
      '\u0000',
      'lone \ud800',
      '\udfff',
      'pair \ud83d\ude00',
      '\u2028',
    ]) {
      expect(canonicalJson(text)).toBe(JSON.stringify(text));
    }
    const keys = Array.from({ length: 50 }, (_, i) => `k${(i * 37) % 50}`);
    const object = Object.fromEntries(keys.map((key) => [key, 1]));
    const sorted = [...keys].sort();
    expect(canonicalJson(object)).toBe(`{${sorted.map((key) => `"${key}":1`).join(',')}}`);
    expect(canonicalJson({ b: 1, a: 2, é: 3, Z: 4 })).toBe('{"Z":4,"a":2,"b":1,"é":3}');
  });
});
