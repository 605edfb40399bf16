/**
 * `npm run build`: compiles every package named by package.json's `imports` (`#<name>/*` →
 * `./packages/<name>/src/*`) into dist/<name>, then the service, and writes dist/package.json
 * mapping `#<name>/*` to it. The packages are listed once, in `imports` (Node reads only that);
 * `workspaces` and this build follow it, and test/unit/package-registry.test.ts holds the rest.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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

function build(): void {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as {
    imports?: Record<string, string>;
  };
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compile = (...args: string[]) =>
    execFileSync(process.execPath, [tsc, ...args], { stdio: 'inherit' });
  rmSync('dist', { recursive: true, force: true });
  const names = importedPackages(manifest);
  for (const name of names)
    compile('-p', `packages/${name}/tsconfig.json`, '--outDir', `dist/${name}`);
  compile('-p', 'tsconfig.build.json');
  cpSync('src/http/dashboard', 'dist/http/dashboard', { recursive: true });
  const imports = Object.fromEntries(names.map((name) => [`#${name}/*`, `./${name}/*`]));
  writeFileSync('dist/package.json', `${JSON.stringify({ type: 'module', imports })}\n`);
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
