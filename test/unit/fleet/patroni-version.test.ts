import { describe, expect, it } from 'vitest';
import { patroniRefusal } from '../../../tools/fleet/up.js';

const answering = (stdout: string, stderr = '') => patroniRefusal({ stdout, stderr });

describe('the Patroni a fleet runs', () => {
  it('refuses a Patroni that overwrites the leader key without a compare (before 3.0.3)', () => {
    expect(answering('patroni 3.0.2\n')).toMatch(
      /Patroni 3\.0\.2 .*patroni\/patroni#2689.*3\.0\.3/,
    );
    expect(answering('patroni 2.1.9\n')).toMatch(/Patroni 2\.1\.9/);
  });

  it('accepts 3.0.3 and later, ordering the parts as numbers', () => {
    expect(answering('patroni 3.0.3\n')).toBeUndefined();
    expect(answering('patroni 3.10.0\n')).toBeUndefined();
    expect(answering('patroni 4.0.7\n')).toBeUndefined();
  });

  it('refuses an answer that names no version, saying what it said', () => {
    expect(answering('', 'patroni: not found')).toBe(
      '`patroni --version` did not name a version: patroni: not found',
    );
  });
});
