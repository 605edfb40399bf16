import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_REFUSES } from '../../eslint.config.js';
import { importedPackages, sharedPackages } from '../../tools/build.js';
import { moduleSpecifiers, typeScriptFiles } from '../support/source-files.js';

/**
 * Issue 66, item 4: the packages are npm workspaces, each standing alone. The service's list of
 * them is package.json's `imports` (Node reads only that); the build, the linter's rules and the
 * test projects follow it or the folder, and nothing else lists them.
 */
interface Manifest {
  name: string;
  version?: string;
  workspaces?: string[];
  imports?: Record<string, string>;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  scripts?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
const root = read('package.json');
const folders = readdirSync('packages', { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** Every module a package's source imports by bare name, as npm names it. */
const bareImports = (dir: string): Set<string> =>
  new Set(
    typeScriptFiles(path.join('packages', dir, 'src'))
      .flatMap((file) => moduleSpecifiers(readFileSync(file, 'utf8')))
      .filter((specifier) => !/^[.#/]/.test(specifier))
      .filter((specifier) => !specifier.startsWith('node:') && !builtinModules.includes(specifier))
      .map((specifier) => {
        const parts = specifier.split('/');
        return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
      }),
  );

describe('the packages, as workspaces', () => {
  it('are the workspaces, each named token-authority-<folder>', () => {
    expect(root.workspaces).toEqual(['packages/*']);
    for (const dir of folders)
      expect(read(`packages/${dir}/package.json`).name).toBe(`token-authority-${dir}`);
  });

  it("the service imports each it lists in package.json's imports, and the linter has a rule for each", () => {
    const imported = importedPackages(root);
    expect(imported.every((name) => folders.includes(name))).toBe(true);
    expect(Object.keys(PACKAGE_REFUSES).sort()).toEqual([...imported].sort());
    // The one package the service does not import: testcontainers, for its users' tests.
    expect(folders.filter((dir) => !imported.includes(dir))).toEqual(['testcontainers']);
  });

  it.each(folders)('%s declares every module its source imports', (dir) => {
    const manifest = read(`packages/${dir}/package.json`);
    const declared = new Set(
      Object.keys({
        ...manifest.dependencies,
        ...manifest.peerDependencies,
        ...manifest.optionalDependencies,
      }),
    );
    expect([...bareImports(dir)].filter((name) => !declared.has(name))).toEqual([]);
  });

  it.each(folders)('%s opens one front door: its index, and its package.json', (dir) => {
    expect(Object.keys(read(`packages/${dir}/package.json`).exports ?? {})).toEqual([
      '.',
      './package.json',
    ]);
  });

  it.each(folders)(
    '%s takes another package only as an optional peer at its version, built before it',
    (dir) => {
      const manifest = read(`packages/${dir}/package.json`);
      // A dependency by an unpublished name is one npm would look up in the public registry.
      expect(
        Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies }).filter((name) =>
          name.startsWith('token-authority-'),
        ),
      ).toEqual([]);
      const taken = Object.entries(manifest.peerDependencies ?? {}).filter(([name]) =>
        name.startsWith('token-authority-'),
      );
      for (const [name, version] of taken) {
        const folder = name.slice('token-authority-'.length);
        expect(folders).toContain(folder);
        expect(version).toBe(read(`packages/${folder}/package.json`).version);
        expect(manifest.peerDependenciesMeta?.[name]).toEqual({ optional: true });
        // Its build compiles against the other's build, not its sources (rootDir), and builds
        // that first; the service's build does both (tools/build.ts).
        const build = JSON.parse(readFileSync(`packages/${dir}/tsconfig.build.json`, 'utf8')) as {
          compilerOptions: { paths?: Record<string, string[]> };
        };
        expect(build.compilerOptions.paths).toEqual({
          'token-authority-*': ['../*/dist/index.d.ts'],
        });
        expect(manifest.scripts?.build).toContain(`npm --prefix ../${folder} run build`);
      }
      expect(sharedPackages([dir])).toEqual(taken.map(([name]) => name.slice(16)));
    },
  );
});
