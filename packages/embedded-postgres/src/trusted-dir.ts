import { lstat, mkdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * Makes sure `dir` exists and is ours alone to write: a real directory (not a symlink), owned by
 * this process's user, writable by nobody else, and every folder above it owned by root or by us
 * and, where others may write in it, sticky (as /var/tmp is). Called before every use of a shared
 * folder such as /var/tmp, where another local user could create the folder first, plant a link
 * in our way or (in a parent they may write without the sticky bit) rename ours away and put
 * theirs in its place, and so get their binaries run or our chown redirected. Throws naming the
 * problem.
 */
export async function ensureTrustedDir(dir: string, mode = 0o755): Promise<void> {
  await mkdir(dir, { recursive: true, mode }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const uid = process.getuid?.();
  const stat = await lstat(dir);
  const problem = stat.isSymbolicLink()
    ? 'is a symbolic link'
    : !stat.isDirectory()
      ? 'is not a directory'
      : uid !== undefined && stat.uid !== uid
        ? `is owned by uid ${stat.uid}, not by us (uid ${uid})`
        : (stat.mode & 0o022) !== 0
          ? `is writable by group or others (mode ${(stat.mode & 0o777).toString(8)})`
          : await ancestorProblem(path.resolve(dir), uid);
  if (problem) {
    // Not "fix it": a chown -R or chmod -R there would act on whatever another user planted in it.
    throw new Error(`refusing to use ${dir}: it ${problem}; remove it (as its owner) and retry`);
  }
}

/** What makes a folder above `dir` unsafe, if anything: another owner, or others' writes unsticky. */
async function ancestorProblem(dir: string, uid: number | undefined): Promise<string | undefined> {
  for (let above = path.dirname(dir); ; above = path.dirname(above)) {
    const stat = await lstat(above);
    if (uid !== undefined && stat.uid !== 0 && stat.uid !== uid) {
      return `is inside ${above}, owned by uid ${stat.uid} (neither root nor us)`;
    }
    // A symlink's own mode means nothing; who may replace it is its parent's question, next turn.
    const sticky = (stat.mode & 0o1000) !== 0;
    if (!stat.isSymbolicLink() && (stat.mode & 0o022) !== 0 && !sticky) {
      return `is inside ${above}, which group or others may write and is not sticky (mode ${(stat.mode & 0o7777).toString(8)})`;
    }
    if (above === path.dirname(above)) return undefined;
  }
}
