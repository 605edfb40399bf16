import { describe, expect, it } from 'vitest';
import { newCode, newSecret, readCode, secretMatches } from '../src/secrets.js';

describe('codes and secrets', () => {
  it('keep a digest the secret matches and no other secret does', () => {
    const { secret, digest } = newSecret();
    expect(digest).not.toContain(secret);
    expect(secretMatches(secret, digest)).toBe(true);
    expect(secretMatches(newSecret().secret, digest)).toBe(false);
    expect(secretMatches(secret, '')).toBe(false);
  });

  it('read a code back into its request id and secret; refuse what is no code', () => {
    const { code, digest } = newCode('req_123');
    const read = readCode(code)!;
    expect(read.requestId).toBe('req_123');
    expect(secretMatches(read.secret, digest)).toBe(true);
    expect(readCode('req_123')).toBeUndefined();
    expect(readCode(`req 1.${'a'.repeat(43)}`)).toBeUndefined();
    expect(readCode(`${'r'.repeat(65)}.${'a'.repeat(43)}`)).toBeUndefined();
    expect(readCode(`r.${'a'.repeat(44)}`)).toBeUndefined();
  });
});
