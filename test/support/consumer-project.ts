import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Packs this project (`npm pack` runs prepack, which compiles TypeScript to dist/) into `work`
 * and makes `work/consumer`, a plain JavaScript project depending on the tarball and on
 * `alongside`; installing is the caller's. Returns the project's folder and the packed files.
 */
export async function packedConsumerProject(
  work: string,
  alongside: Readonly<Record<string, string>> = {},
): Promise<{ project: string; files: string[] }> {
  const packed = await run('npm', ['pack', '--pack-destination', work, '--json'], {
    cwd: process.cwd(),
    maxBuffer: 64 * 1024 * 1024,
  });
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  const project = path.join(work, 'consumer');
  await mkdir(project, { recursive: true });
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: { 'token-authority': `file:${path.join(work, info!.filename)}`, ...alongside },
    }),
  );
  return { project, files: info!.files.map((file) => file.path) };
}
