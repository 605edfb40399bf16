import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { binariesFor, removeDeadLeftovers } from '#embedded-postgres/binaries.js';
import { ensureTrustedDir } from '#embedded-postgres/trusted-dir.js';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function stagingRoot(): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'staging-'));
  roots.push(root);
  return root;
}

/** A folder under `root`, its mtime `ageMs` ago. */
async function folder(root: string, name: string, ageMs: number): Promise<void> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'bin'), { recursive: true });
  await writeFile(path.join(dir, 'bin', 'postgres'), '');
  const when = new Date(Date.now() - ageMs);
  await utimes(dir, when, when);
}

// A pid whose process has ended (reused within this test only by a freak of the kernel).
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const HOUR = 3_600_000;

describe('staged Postgres binaries: leftovers of killed stagings', () => {
  it("removes an old copy whose process is gone or is this one's last life, never a live process's, a young one or the staged copy", async () => {
    const root = await stagingRoot();
    const staged = path.join(root, 'bin-18.4.0');
    const dead = deadPid();
    const youngDead = deadPid();
    const olderDead = deadPid();
    await folder(root, 'bin-18.4.0', HOUR);
    await folder(root, `bin-18.4.0.partial-${dead}-a1B2c3`, HOUR);
    await folder(root, `bin-18.4.0.stale-${dead}-0f9e8d7c6b5a`, HOUR);
    await folder(root, `bin-18.4.0.stale-${dead}-a1B2c30`, HOUR); // a partial's name moved aside
    await folder(root, `bin-18.4.0.partial-${olderDead}`, HOUR); // an older release's name
    await folder(root, `bin-18.4.0.partial-${process.pid}-x`, HOUR); // a container's last life
    await folder(root, `bin-18.4.0.partial-${process.pid}-w`, 60_000); // this one's: perhaps copying
    await folder(root, `bin-18.4.0.partial-${process.ppid}-y`, HOUR); // a live process
    await folder(root, `bin-18.4.0.partial-${youngDead}-z`, 60_000); // young: perhaps still copying elsewhere
    await folder(root, `bin-17.0.0.partial-${dead}`, HOUR); // another version's: not ours to judge
    await folder(root, `bin-18.4.0.partial-x${dead}`, HOUR); // not a pid

    const removed = await removeDeadLeftovers(staged);

    expect(removed.sort()).toEqual(
      [
        `bin-18.4.0.partial-${dead}-a1B2c3`,
        `bin-18.4.0.partial-${olderDead}`,
        `bin-18.4.0.stale-${dead}-0f9e8d7c6b5a`,
        `bin-18.4.0.stale-${dead}-a1B2c30`,
        `bin-18.4.0.partial-${process.pid}-x`,
      ].sort(),
    );
    for (const kept of [
      'bin-18.4.0',
      `bin-18.4.0.partial-${process.pid}-w`,
      `bin-18.4.0.partial-${process.ppid}-y`,
      `bin-18.4.0.partial-${youngDead}-z`,
      `bin-17.0.0.partial-${dead}`,
      `bin-18.4.0.partial-x${dead}`,
    ]) {
      expect(existsSync(path.join(root, kept)), kept).toBe(true);
    }
  });

  // Staging for another user is checked by running `test` as that user: root only.
  it.runIf(process.getuid?.() === 0)(
    'replaces an unfinished copy, and leaves nothing beside the staged one',
    async () => {
      const root = await stagingRoot();
      // Binaries the postgres user cannot reach (a mode-700 folder), so they are staged.
      const source = await stagingRoot();
      await folder(source, 'native', 0);
      const staged = path.join(root, 'bin-18.4.0');
      await mkdir(path.join(staged, 'share'), { recursive: true });
      const silent = { debug() {}, info() {}, warn() {}, error() {} };
      const nobody = { uid: 65534, gid: 65534 };
      const binaries = { nativeDir: path.join(source, 'native'), version: '18.4.0' };
      await expect(binariesFor(binaries, nobody, root, silent)).resolves.toBe(staged);
      expect(existsSync(path.join(staged, 'bin', 'postgres'))).toBe(true);
      expect(existsSync(path.join(staged, 'share'))).toBe(false);
      expect(await readdir(root)).toEqual(['bin-18.4.0']);
    },
  );

  it('tells the owner to remove a folder it refuses, never to fix it in place', async () => {
    const root = await stagingRoot();
    const dir = path.join(root, 'shared');
    await mkdir(dir);
    await chmod(dir, 0o777);
    await expect(ensureTrustedDir(dir)).rejects.toThrow(
      /refusing to use .*shared: it is writable by group or others \(mode 777\); remove it \(as its owner\) and retry$/,
    );
  });

  it('refuses a folder whose parent others may write without the sticky bit, also through a link, not one under a sticky parent', async () => {
    const root = await stagingRoot();
    const open = path.join(root, 'open');
    await mkdir(open);
    await chmod(open, 0o777);
    // Anyone could rename `staged` away and put their own folder in its place.
    const refused =
      /refusing to use .*staged: it is inside .*open, which group or others may write and is not sticky \(mode 777\); make it sticky \(chmod \+t\) or use another folder$/;
    await expect(ensureTrustedDir(path.join(open, 'staged'))).rejects.toThrow(refused);
    // Reached through a link whose own folder is safe: the folders above its target count.
    const safe = path.join(root, 'safe');
    await mkdir(safe, { mode: 0o755 });
    await symlink(open, path.join(safe, 'link'));
    await expect(ensureTrustedDir(path.join(safe, 'link', 'staged'))).rejects.toThrow(refused);
    await chmod(open, 0o1777); // as /tmp and /var/tmp are
    await expect(ensureTrustedDir(path.join(open, 'staged'))).resolves.toBeUndefined();
    await expect(ensureTrustedDir(path.join(safe, 'link', 'staged'))).resolves.toBeUndefined();
  });
});
