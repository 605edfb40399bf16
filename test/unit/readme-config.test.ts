import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';

// The README's configuration table: rows of the form | `VARIABLE` | default | meaning |.
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const documented = [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` +\|/gm)].map((match) => match[1]);

describe('README configuration table', () => {
  it('documents every setting the service reads, and nothing it does not', () => {
    expect([...new Set(documented)].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });
});
