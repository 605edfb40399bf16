import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Reads `file`, or creates it with `create()` (mode 0600) when missing. The content is written to
 * a file of its own first and then linked into place, which fails if `file` exists: two processes
 * starting at once (the API workers of token-authority's `npm start`, two witnesses) agree on one value, and neither ever reads a
 * file the other has created but not yet filled.
 */
export async function readOrCreateFile(
  file: string,
  create: () => Promise<string> | string,
): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(draft, await create(), { mode: 0o600, flag: 'wx' });
  try {
    await link(draft, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST') {
      // A file system without hard links: an exclusive create, as before links were used.
      if (!['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV'].includes(code ?? '')) throw error;
      await writeFile(file, await readFile(draft), { mode: 0o600, flag: 'wx' }).catch(
        (failed: NodeJS.ErrnoException) => {
          if (failed.code !== 'EEXIST') throw failed;
        },
      );
    }
  } finally {
    await unlink(draft).catch(() => undefined);
  }
  return readFile(file, 'utf8');
}
