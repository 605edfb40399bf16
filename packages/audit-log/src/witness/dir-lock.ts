import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from 'token-authority-settings';

/** A folder held by this process until `release` (or its exit). */
export interface DirectoryLock {
  readonly file: string;
  /** Removes the lock file if it is still this process's. */
  release(): void;
}

/** Whether a process with `pid` runs (EPERM: it does, as another user). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const pidIn = (text: string) => (/^(\d+) [0-9a-f]+\n$/.exec(text) ? Number.parseInt(text) : 0);

/**
 * Holds `dir` for this process: `<dir>/<name>` is created exclusively (O_EXCL, flag 'wx') with
 * this process's pid and a random token, so a second process on the folder is refused for as long
 * as the first one runs. Node has no flock; a lock left by a process that died is taken over when
 * its pid no longer runs (or is this process's own: a container restarted with the same pid). The
 * take-over renames the stale file aside first and checks that it moved what it read, so two
 * processes taking over at once cannot both win: the loser refuses to start. A pid reused by an
 * unrelated process keeps the folder locked until an operator removes the file, which is the safe
 * way to be wrong. Throws a ConfigError naming `setting` when the folder is held.
 */
export async function lockDirectory(
  dir: string,
  name: string,
  setting: string,
): Promise<DirectoryLock> {
  const file = path.join(dir, name);
  const token = `${process.pid} ${randomBytes(8).toString('hex')}\n`;
  const held = (why: string) =>
    new ConfigError([
      `${setting} ${dir}: ${why} (${file}; remove it only if no such process runs)`,
    ]);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      await writeFile(file, token, { flag: 'wx', mode: 0o600 });
      return {
        file,
        release: () => {
          try {
            if (readFileSync(file, 'utf8') === token) unlinkSync(file);
          } catch {
            // Gone already: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const seen = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined; // released meanwhile: try again
      throw error;
    });
    if (seen === undefined) continue;
    const pid = pidIn(seen);
    if (pid === 0) throw held('its lock file is being written or is not a lock');
    if (pid !== process.pid && running(pid)) throw held(`process ${pid} holds it`);
    const aside = `${file}.stale.${process.pid}.${randomBytes(6).toString('hex')}`;
    try {
      await rename(file, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = await readFile(aside, 'utf8');
    if (moved !== seen) {
      // Another process took the stale lock over first and this one moved its fresh lock: put it
      // back (unless a third was faster still) and give way.
      await link(aside, file).catch(() => undefined);
      await unlink(aside);
      throw held('another process is taking it over');
    }
    await unlink(aside);
  }
  throw held('could not take its lock');
}
