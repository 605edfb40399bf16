import { lstat, mkdir, realpath } from 'node:fs/promises';
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
          : undefined;
  if (problem) {
    // Not "fix it": a chown -R or chmod -R there would act on whatever another user planted in it.
    throw new Error(`refusing to use ${dir}: it ${problem}; remove it (as its owner) and retry`);
  }
  // The folders above as written and, through any link among them, as they really are.
  const absolute = path.resolve(dir);
  const real = path.join(await realpath(path.dirname(absolute)), path.basename(absolute));
  const above =
    (await ancestorProblem(absolute, uid)) ??
    (real === absolute ? undefined : await ancestorProblem(real, uid));
  if (above) throw new Error(`refusing to use ${dir}: it is inside ${above}`);
}

/**
 * The first folder above `dir` another user could swap `dir` out of, and what to do: one owned by
 * neither root nor us, or one others may write without the sticky bit (as /var/tmp has).
 */
async function ancestorProblem(dir: string, uid: number | undefined): Promise<string | undefined> {
  for (let above = path.dirname(dir); ; above = path.dirname(above)) {
    const stat = await lstat(above);
    if (uid !== undefined && stat.uid !== 0 && stat.uid !== uid) {
      return `${above}, owned by uid ${stat.uid} (neither root nor us); use a folder under root's or ours`;
    }
    // A link's own mode means nothing: who may replace it is its parent's question, next turn.
    const sticky = (stat.mode & 0o1000) !== 0;
    if (!stat.isSymbolicLink() && (stat.mode & 0o022) !== 0 && !sticky) {
      const mode = (stat.mode & 0o7777).toString(8);
      return `${above}, which group or others may write and is not sticky (mode ${mode}); make it sticky (chmod +t) or use another folder`;
    }
    if (above === path.dirname(above)) return undefined;
  }
}
