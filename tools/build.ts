/**
 * `npm run build`: compiles every package named by package.json's `imports` (`#<name>/*` →
 * `./packages/<name>/src/*`) into dist/<name>, then the service, and writes dist/package.json
 * mapping `#<name>/*` to it; a package imported by another by name is reached there through
 * dist/node_modules. The packages are listed once, in `imports` (Node reads only that);
 * `workspaces` and this build follow it, and test/unit/package-registry.test.ts holds the rest.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
    dependencies?: Record<string, string>;
  };

/** The packages another package imports by name (`token-authority-<name>` in its dependencies). */
export function sharedPackages(names: readonly string[]): string[] {
  const shared = new Set<string>();
  for (const name of names)
    for (const dependency of Object.keys(
      readManifest(`packages/${name}/package.json`).dependencies ?? {},
    )) {
      const match = /^token-authority-([a-z0-9-]+)$/.exec(dependency);
      if (match) shared.add(match[1]!);
    }
  return [...shared].sort();
}

function build(): void {
  const manifest = readManifest('package.json');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compile = (...args: string[]) =>
    execFileSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
  rmSync('dist', { recursive: true, force: true });
  const names = importedPackages(manifest);
  const shared = sharedPackages(names);
  // A package another compiles against is built in its own folder first (its tsconfig maps
  // `token-authority-<name>` to ../<name>/dist); the workspace link may not exist (the image's
  // build stage installs before it copies packages/).
  for (const name of shared) compile('-p', `packages/${name}/tsconfig.json`);
  for (const name of names)
    compile('-p', `packages/${name}/tsconfig.json`, '--outDir', `dist/${name}`);
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
