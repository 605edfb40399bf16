import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { commandsDoc, packageScripts, undescribedScripts } from '../../tools/commands-doc.js';

const DOC = fileURLToPath(new URL('../../docs/commands.md', import.meta.url));

// What `npm run docs:commands` leaves on disk: the generated text as prettier formats it.
async function generated(): Promise<string> {
  const options = await prettier.resolveConfig(DOC);
  return prettier.format(commandsDoc(packageScripts()), { ...options, filepath: DOC });
}

describe('docs/commands.md', () => {
  it('is what npm run docs:commands writes from package.json, byte for byte', async () => {
    expect(
      readFileSync(DOC, 'utf8'),
      'docs/commands.md differs from package.json: run npm run docs:commands',
    ).toBe(await generated());
  });

  it('every script of package.json has a line in tools/commands-doc.ts, and no line is stale', () => {
    expect(undescribedScripts(packageScripts())).toEqual({ missing: [], extra: [] });
  });

  it('refuses to write a doc for a script without a description', () => {
    const scripts = { ...packageScripts(), 'brand-new': 'tsx src/cli/brand-new.ts' };
    expect(undescribedScripts(scripts).missing).toEqual(['brand-new']);
    expect(() => commandsDoc(scripts)).toThrow(/describe brand-new/);
  });

  it('names every script once, as a command a user can type', () => {
    const doc = readFileSync(DOC, 'utf8');
    for (const name of Object.keys(packageScripts())) {
      const typed = name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`;
      expect(doc, name).toMatch(new RegExp(`^- \`${typed.replace(/[.:]/g, '\\$&')}[ \`]`, 'm'));
    }
  });
});
