import { execFile } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { pack } from './consumer-project.js';

const run = promisify(execFile);

/** The install line docs/testing.md gives the testcontainers module's users, as written. */
export async function documentedInstallLine(): Promise<string> {
  const docs = await readFile('docs/testing.md', 'utf8');
  const line = /^npm install --save-dev \.\/token-authority-testcontainers-\S+\.tgz.*$/m.exec(docs);
  if (!line) throw new Error('docs/testing.md gives no install line for the testcontainers module');
  return line[0];
}

/**
 * Packs packages/testcontainers (its prepack compiles its src/), puts the tarball in
 * `work/consumer`, an empty plain JavaScript project, under the name the docs use, and runs the
 * docs' install line there as written: what users install is what this installs, not the
 * lockfile's versions. Returns the project's folder and the line run.
 */
export async function installedAsDocumented(
  work: string,
): Promise<{ project: string; line: string }> {
  const info = await pack(path.resolve('packages/testcontainers'), work);
  const line = await documentedInstallLine();
  const project = path.join(work, 'consumer');
  await mkdir(project, { recursive: true });
  await writeFile(
    path.join(project, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  const named = /\.\/(token-authority-testcontainers-\S+\.tgz)/.exec(line)![1]!;
  await copyFile(path.join(work, info.filename), path.join(project, named));
  await run('sh', ['-c', `${line} --no-audit --no-fund`], {
    cwd: project,
    maxBuffer: 64 * 1024 * 1024,
    timeout: 300_000,
  });
  return { project, line };
}
