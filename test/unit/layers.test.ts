import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LAYERS, PACKAGE_REFUSES, ROOMS, SUB_LAYERS, TOOL_LAYERS } from '../../eslint.config.js';
import { moduleSpecifiers, typeScriptFiles } from '../support/source-files.js';

const SRC = path.resolve('src');

/** Every .ts file under src/, relative to it. */
const sourceFiles = (): string[] => typeScriptFiles(SRC).map((file) => path.relative(SRC, file));

/** The src/ files a file imports (relative imports only), as paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  return [...text.matchAll(/(?:from|import)\s+'(\.{1,2}\/[^']+)'/g)].map((match) =>
    path.relative(SRC, path.resolve(SRC, path.dirname(file), match[1]!)).replace(/\.js$/, '.ts'),
  );
}

/**
 * What a file imports: relative imports as paths relative to src/, bare ones as they are written;
 * `runtime` only those left after compilation (no `import type`).
 */
function specifiersOf(file: string, which: 'all' | 'runtime'): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8');
  const statements = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^;'"]*?\sfrom\s+)?'([^']+)'/g),
  ];
  return statements
    .filter((match) => which === 'all' || match[1] === undefined)
    .map((match) =>
      match[2]!.startsWith('.')
        ? path
            .relative(SRC, path.resolve(SRC, path.dirname(file), match[2]!))
            .replace(/\.js$/, '.ts')
        : match[2]!,
    );
}

/** Every file `file` reaches through its run-time imports (itself included). */
function reachedAtRuntime(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const spec of specifiersOf(file, 'runtime')) {
    if (spec.endsWith('.ts')) reachedAtRuntime(spec, seen);
  }
  return seen;
}

/**
 * What a room may not touch: the src/ folders its rule refuses, its refused sibling rooms, and
 * the database drivers when it may not use src/db (the same reading as eslint.config.js).
 */
function refusedBy(room: string): { folders: string[]; modules: string[] } {
  const [folder, name] = room.split('/') as [string, string];
  const uses = SUB_LAYERS[room] ?? [];
  return {
    folders: [
      ...Object.keys(LAYERS).filter((other) => other !== folder && !uses.includes(other)),
      ...(ROOMS[folder] ?? [])
        .filter((other) => other !== name && !uses.includes(`${folder}/${other}`))
        .map((other) => `${folder}/${other}`),
    ],
    modules: uses.includes('db') ? [] : ['kysely', 'pg'],
  };
}

/** A room's import of something its rule refuses, directly or through the files it reaches. */
function roomViolations(room: string, files: readonly string[]): string[] {
  const { folders, modules } = refusedBy(room);
  const refusedFile = (target: string) => folders.some((other) => target.startsWith(`${other}/`));
  const refusedModule = (spec: string) =>
    modules.some((name) => spec === name || spec.startsWith(`${name}/`));
  return files.flatMap((file) => [
    // Its own imports, types included: the rule eslint enforces.
    ...specifiersOf(file, 'all')
      .filter((spec) => refusedFile(spec) || refusedModule(spec))
      .map((spec) => `${file} imports ${spec}`),
    // What it pulls in at run time through other files (a shared module may not smuggle it in).
    ...[...reachedAtRuntime(file)]
      .filter((reached) => reached !== file)
      .flatMap((reached) => [
        ...(refusedFile(reached) ? [`${file} reaches ${reached}`] : []),
        ...specifiersOf(reached, 'runtime')
          .filter(refusedModule)
          .map((spec) => `${file} reaches ${reached}, which imports ${spec}`),
      ]),
  ]);
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

  it('names every folder of tools/, and only those', () => {
    const folders = readdirSync('tools', { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `tools/${entry.name}`);
    expect(Object.keys(TOOL_LAYERS).sort()).toEqual(folders.sort());
  });

  it('has no cycle between folders (tools included)', () => {
    expect(findCycle(new Map(Object.entries({ ...LAYERS, ...TOOL_LAYERS })))).toBeUndefined();
  });

  it('lets no folder of src/ use tools/', () => {
    const uses = Object.values({ ...LAYERS, ...SUB_LAYERS }).flat();
    expect(uses.filter((use) => use.startsWith('tools/'))).toEqual([]);
    const reachTools = sourceFiles().flatMap((file) =>
      specifiersOf(file, 'all')
        .filter((spec) => spec.startsWith('../tools/'))
        .map((spec) => `src/${file} imports ${spec}`),
    );
    expect(reachTools).toEqual([]);
  });

  it('is the "may use" column of docs/architecture.md, row for row (rooms and tools too)', () => {
    const rows = readFileSync('docs/architecture.md', 'utf8')
      .split('\n')
      .map((line) =>
        /^\|\s*`(src|tools)\/([a-z-]+(?:\/[a-z-]+)?)`\s*\|[^|]*\|\s*([^|]*?)\s*\|$/.exec(line),
      )
      .filter((match) => match !== null);
    const documented = Object.fromEntries(
      rows.map((match) => [
        match[1] === 'src' ? match[2]! : `tools/${match[2]!}`,
        match[3] === '—'
          ? []
          : match[3]!
              .split(',')
              .map((name) => name.trim())
              .sort(),
      ]),
    );
    const enforced = Object.fromEntries(
      Object.entries({ ...LAYERS, ...SUB_LAYERS, ...TOOL_LAYERS }).map(([folder, uses]) => [
        folder,
        [...uses].sort(),
      ]),
    );
    expect(documented).toEqual(enforced);
  });
});

describe('the rooms of a folder (eslint.config.js ROOMS, SUB_LAYERS)', () => {
  it('names every sub-folder of a folder with rooms, and only those', () => {
    for (const [folder, rooms] of Object.entries(ROOMS)) {
      const found = readdirSync(path.join(SRC, folder), { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
      expect([...rooms].sort()).toEqual(found.sort());
    }
  });

  it("narrows its folder's row, never widens it", () => {
    for (const [room, uses] of Object.entries(SUB_LAYERS)) {
      const [folder] = room.split('/') as [string];
      const allowed = [
        folder,
        ...(LAYERS[folder] ?? []),
        ...(ROOMS[folder] ?? []).map((other) => `${folder}/${other}`),
      ];
      expect(uses.filter((use) => !allowed.includes(use))).toEqual([]);
    }
  });

  it('holds every room to its rule, also through the files it imports at run time', () => {
    for (const room of Object.keys(SUB_LAYERS)) {
      const files = sourceFiles().filter((file) => file.startsWith(`${room}/`));
      expect(files.length).toBeGreaterThan(0);
      expect(roomViolations(room, files)).toEqual([]);
    }
  });
});

describe('the packages (packages/*, each in PACKAGE_REFUSES)', () => {
  it.each(Object.entries(PACKAGE_REFUSES))(
    '%s imports nothing outside itself: no src/, tools/ or test/ of the service, no driver',
    (name, { modules }) => {
      const ROOT = path.resolve('packages', name);
      const outside = typeScriptFiles(ROOT).flatMap((file) =>
        moduleSpecifiers(readFileSync(file, 'utf8'))
          .filter((spec) =>
            spec.startsWith('.')
              ? !path.resolve(path.dirname(file), spec).startsWith(`${ROOT}/`)
              : spec.startsWith('#') || modules.includes(spec),
          )
          .map((spec) => `${path.relative(ROOT, file)} imports ${spec}`),
      );
      // Some files found: the walk reached the package (the smallest has seven).
      expect(typeScriptFiles(ROOT).length).toBeGreaterThan(5);
      expect(outside).toEqual([]);
    },
  );
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
