import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { lockDirectory, type DirectoryLock } from '#audit-log/witness/dir-lock.js';
import { ConfigError } from 'token-authority-settings';

const run = promisify(execFile);

/**
 * Packs the package in `packageDir` (`npm pack` runs prepack, which compiles TypeScript to dist/)
 * into `work` and makes `work/consumer`, a plain JavaScript project depending on the tarball and
 * on `alongside`; installing is the caller's. Returns the project's folder and the packed files.
 */
async function packedInto(
  packageDir: string,
  work: string,
  alongside: Readonly<Record<string, string>> = {},
): Promise<{ project: string; files: string[] }> {
  const info = await pack(packageDir, work);
  const project = path.join(work, 'consumer');
  await mkdir(project, { recursive: true });
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { [info.name]: `file:${path.join(work, info.filename)}`, ...alongside },
    }),
  );
  return { project, files: info.files.map((file) => file.path) };
}

/**
 * `npm pack` of `packageDir` into `work` (prepack builds it): the tarball's name, file, contents.
 * One pack of this checkout at a time across test workers: the service's build empties dist/ and
 * the packages' shared dist/ folders that another pack may be reading.
 */
export async function pack(
  packageDir: string,
  work: string,
): Promise<{ name: string; filename: string; files: Array<{ path: string }> }> {
  const packed = await oneAtATime(() =>
    run('npm', ['pack', '--pack-destination', work, '--json'], {
      cwd: packageDir,
      maxBuffer: 64 * 1024 * 1024,
      timeout: 240_000,
    }),
  );
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    name: string;
    filename: string;
    files: Array<{ path: string }>;
  }>;
  return info!;
}

/**
 * Waits its turn for the checkout's pack lock (the witness's folder lock: a holder that died is
 * taken over, safely when two wait), at most ten minutes.
 */
async function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const checkout = createHash('sha256').update(process.cwd()).digest('hex').slice(0, 12);
  const deadline = Date.now() + 600_000;
  let lock: DirectoryLock | undefined;
  while (!lock) {
    lock = await lockDirectory(tmpdir(), `token-authority-pack-${checkout}.lock`, 'pack').catch(
      (error: unknown) => {
        if (!(error instanceof ConfigError) || Date.now() > deadline) throw error;
        return new Promise<undefined>((resolve) => setTimeout(resolve, 200));
      },
    );
  }
  try {
    return await work();
  } finally {
    lock.release();
  }
}

/** One of packages/* packed into `work` on its own: the `file:` spec a consumer installs it by. */
export async function packedTarball(packageDir: string, work: string): Promise<string> {
  return `file:${path.join(work, (await pack(packageDir, work)).filename)}`;
}

/** This project packed (see packedInto): `token-authority` as a user installs it. */
export const packedConsumerProject = (
  work: string,
  alongside: Readonly<Record<string, string>> = {},
) => packedInto(process.cwd(), work, alongside);

/**
 * One of packages/* packed on its own (prepack builds it with its own tsconfig) and installed into
 * `work/consumer`, an empty JavaScript project: what a user who takes only that package has.
 * Returns the project, the packed files, and the README's one `js` block (its usage example),
 * written there as `example.mjs`. `alongside`: what the README says to install with it. Install
 * scripts run only where the package needs them (`scripts`: a native build, a platform package's
 * links), not for every dependency fetched.
 */
export async function packedPackageProject(
  packageDir: string,
  work: string,
  alongside: Readonly<Record<string, string>> = {},
  { scripts = false }: { readonly scripts?: boolean } = {},
): Promise<{ project: string; files: string[]; example: string }> {
  const { project, files } = await packedInto(packageDir, work, alongside);
  const install = ['install', '--prefer-offline', '--no-audit', '--no-fund'];
  await run('npm', scripts ? install : [...install, '--ignore-scripts'], {
    cwd: project,
    timeout: 240_000,
  });
  const example = await readmeExample(packageDir);
  await writeFile(path.join(project, 'example.mjs'), example);
  return { project, files, example };
}

/** A package README's one `js` block: its usage example, run as written by the tests. */
export async function readmeExample(packageDir: string): Promise<string> {
  const readme = await readFile(path.join(packageDir, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);
  if (blocks.length !== 1) throw new Error(`${packageDir}/README.md: one js block expected`);
  return blocks[0]!;
}

/** The line an example says it prints (its last line, `// prints <line>`), if it says one. */
export const promisedLine = (example: string): string | undefined =>
  /\/\/ prints (.+)\n*$/.exec(example)?.[1];

/** What importing `specifier` in `project` says: 'opened', or the error Node printed. */
export async function deepImport(project: string, specifier: string): Promise<string> {
  await writeFile(path.join(project, 'deep.mjs'), `await import(${JSON.stringify(specifier)});`);
  return run(process.execPath, ['deep.mjs'], { cwd: project }).then(
    () => 'opened',
    (error: { stderr: string }) => error.stderr,
  );
}
