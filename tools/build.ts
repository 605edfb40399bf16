/**
 * `npm run build`: compiles every package named by package.json's `imports` (`#<name>/*` →
 * `./packages/<name>/src/*`) into dist/<name>, then the service, and writes dist/package.json
 * mapping `#<name>/*` to it; a package imported by another by name is reached there through
 * dist/node_modules. The packages are listed once, in `imports` (Node reads only that);
 * `workspaces` and this build follow it, and test/unit/package-registry.test.ts holds the rest.
 */
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/** The packages the service imports, from package.json's `imports`, in its order. */
export function importedPackages(manifest: {
  readonly imports?: Record<string, string>;
}): string[] {
  return Object.entries(manifest.imports ?? {}).map(([alias, target]) => {
    const name = /^#([a-z0-9-]+)\/\*$/.exec(alias)?.[1];
    if (!name || target !== `./packages/${name}/src/*`)
      throw new Error(
        `package.json imports: ${alias} → ${target} is not #<name>/* → ./packages/<name>/src/*`,
      );
    return name;
  });
}

const readManifest = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8')) as {
    imports?: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };

/**
 * The packages another package imports by name: `token-authority-<name>` among its peers (optional
 * ones, so npm never looks the unpublished name up in a registry; a user installs its tarball).
 */
export function sharedPackages(names: readonly string[]): string[] {
  const shared = new Set<string>();
  for (const name of names)
    for (const dependency of Object.keys(
      readManifest(`packages/${name}/package.json`).peerDependencies ?? {},
    )) {
      const match = /^token-authority-([a-z0-9-]+)$/.exec(dependency);
      if (match) shared.add(match[1]!);
    }
  return [...shared].sort();
}

/** A package's build configuration: tsconfig.build.json where it has one, else tsconfig.json. */
const buildConfig = (name: string) =>
  existsSync(`packages/${name}/tsconfig.build.json`)
    ? `packages/${name}/tsconfig.build.json`
    : `packages/${name}/tsconfig.json`;

function build(): void {
  const manifest = readManifest('package.json');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compile = (...args: string[]) =>
    execFileSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
  rmSync('dist', { recursive: true, force: true });
  const names = importedPackages(manifest);
  const shared = sharedPackages(names);
  // A package another compiles against is built in its own folder first (the other's
  // tsconfig.build.json maps `token-authority-<name>` to ../<name>/dist); the workspace link may
  // not exist (the image's build stage installs before it copies packages/). Removed after: a
  // build left there would be what a process reaching the package by name runs, stale or not.
  for (const name of shared) compile('-p', `packages/${name}/tsconfig.json`);
  for (const name of names) compile('-p', buildConfig(name), '--outDir', `dist/${name}`);
  for (const name of shared) rmSync(`packages/${name}/dist`, { recursive: true, force: true });
  compile('-p', 'tsconfig.build.json');
  cpSync('src/http/dashboard', 'dist/http/dashboard', { recursive: true });
  const imports = Object.fromEntries(names.map((name) => [`#${name}/*`, `./${name}/*`]));
  writeFileSync('dist/package.json', `${JSON.stringify({ type: 'module', imports })}\n`);
  // At run time a package's `token-authority-<name>` is the very module the service's
  // `#<name>/` reaches (one ConfigError class, not two): dist/node_modules re-exports dist/<name>.
  for (const name of shared) {
    const door = `dist/node_modules/token-authority-${name}`;
    mkdirSync(door, { recursive: true });
    writeFileSync(
      `${door}/package.json`,
      `${JSON.stringify({ name: `token-authority-${name}`, type: 'module', exports: './index.js' })}\n`,
    );
    writeFileSync(`${door}/index.js`, `export * from '../../${name}/index.js';\n`);
  }
}

const USAGE = `Usage: npm run build
Compiles the packages the service imports into dist/<name>, then the service into dist/.`;

// Real paths: run through a symlinked folder, the two spellings differ.
if (
  process.argv[1] &&
  realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))
) {
  if (process.argv.slice(2).includes('--help')) process.stdout.write(`${USAGE}\n`);
  else build();
}
