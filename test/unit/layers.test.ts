import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS } from '../../eslint.config.js';

const SRC = path.resolve('src');

/** Every .ts file under src/, relative to it. */
function sourceFiles(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [path.relative(SRC, full)] : [];
  });
}

/** The src/ files a file imports (relative imports only), as paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)].map((match) =>
    path.relative(SRC, path.resolve(SRC, path.dirname(file), match[1]!)).replace(/\.js$/, '.ts'),
  );
}

/** The first cycle found in `graph`, as the nodes on it, or undefined. */
function findCycle(graph: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the layer table (eslint.config.js LAYERS)', () => {
  it('names every folder of src/, and only those', () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
    expect(Object.keys(LAYERS).sort()).toEqual(folders.sort());
  });

  it('has no cycle between folders', () => {
    expect(findCycle(new Map(Object.entries(LAYERS)))).toBeUndefined();
  });

  it('is the "may use" column of docs/architecture.md, row for row', () => {
    const rows = readFileSync('docs/architecture.md', 'utf8')
      .split('\n')
      .map((line) => /^\|\s*`src\/([a-z-]+)`\s*\|[^|]*\|\s*([^|]*?)\s*\|$/.exec(line))
      .filter((match) => match !== null);
    const documented = Object.fromEntries(
      rows.map((match) => [
        match[1]!,
        match[2] === '—'
          ? []
          : match[2]!
              .split(',')
              .map((name) => name.trim())
              .sort(),
      ]),
    );
    const enforced = Object.fromEntries(
      Object.entries(LAYERS).map(([folder, uses]) => [folder, [...uses].sort()]),
    );
    expect(documented).toEqual(enforced);
  });
});

describe('imports between files', () => {
  it('form no cycle', () => {
    const graph = new Map(sourceFiles().map((file) => [file, importsOf(file)]));
    expect(findCycle(graph)).toBeUndefined();
  });

  it('the cycle finder finds one (so the test above can fail)', () => {
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
        ]),
      ),
    ).toEqual(['a', 'b', 'c', 'a']);
  });
});
