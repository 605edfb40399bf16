import { lstat, mkdir } from 'node:fs/promises';

/**
 * Makes sure `dir` exists and is ours alone to write: a real directory (not a symlink), owned by
 * this process's user, writable by nobody else. Called before every use of a shared folder such as
 * /var/tmp, where another local user could create the folder first or plant a link in our way,
 * and so get their binaries run or our chown redirected. Throws naming the problem.
 */
export async function ensureTrustedDir(dir: string, mode = 0o755): Promise<void> {
  await mkdir(dir, { recursive: true, mode }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const stat = await lstat(dir);
  const uid = process.getuid?.();
  const problem = stat.isSymbolicLink()
    ? 'is a symbolic link'
    : !stat.isDirectory()
      ? 'is not a directory'
      : uid !== undefined && stat.uid !== uid
        ? `is owned by uid ${stat.uid}, not by us (uid ${uid})`
        : (stat.mode & 0o022) !== 0
          ? `is writable by group or others (mode ${(stat.mode & 0o777).toString(8)})`
          : undefined;
  if (problem) {
    // Not "fix it": a chown -R or chmod -R there would act on whatever another user planted in it.
    throw new Error(`refusing to use ${dir}: it ${problem}; remove it (as its owner) and retry`);
  }
}
