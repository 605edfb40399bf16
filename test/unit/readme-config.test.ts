import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/config.js';

// docs/configuration.md's table: rows of the form | `VARIABLE` | default | meaning |.
const readme = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
const documented = [...readme.matchAll(/^\| `([A-Z][A-Z0-9_]+)` +\|/gm)].map((match) => match[1]);

describe('docs/configuration.md', () => {
  it('documents every setting the service reads, and nothing it does not', () => {
    expect([...new Set(documented)].sort()).toEqual(Object.keys(configSchema.shape).sort());
  });
});
