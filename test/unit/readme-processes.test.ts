import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** How the README names each program `npm start` runs as a child (src/cli/<file>.ts). */
const README_NAMES: Readonly<Record<string, string>> = {
  api: 'the API',
  projector: 'the projector',
  deliver: 'the audit deliverer',
};
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];

describe("the README's account of `npm start`", () => {
  // The children src/cli/start.ts starts: each is a sibling entry point it names.
  const start = readFileSync('src/cli/start.ts', 'utf8');
  const children = [...new Set([...start.matchAll(/sibling\('([\w-]+)'\)/g)].map((m) => m[1]!))];
  const readme = readFileSync('README.md', 'utf8');
  const paragraph = readme.slice(readme.indexOf('`npm start` needs no setup'));
  const told = paragraph.slice(0, paragraph.indexOf('\n\n'));

  it('names every program it starts', () => {
    expect(children.sort()).toEqual(Object.keys(README_NAMES).sort());
    for (const child of children) expect(told).toContain(README_NAMES[child]);
  });

  it('counts them right: the children and Postgres', () => {
    expect(start).toMatch(/openDatabase\(/);
    const count = /stops all (\w+)\./.exec(told)?.[1];
    expect(WORDS.indexOf(count ?? '')).toBe(children.length + 1);
  });
});
