import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOrCreateFile } from '../../packages/audit-log/src/read-or-create-file.js';
import { tempDir } from '../support/after-file.js';

const dir = await tempDir('token-authority-data-files-');
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('files created once in DATA_DIR', () => {
  it('many creators at once all read the one complete value, never a file still being filled', async () => {
    for (let round = 0; round < 10; round += 1) {
      const file = path.join(dir, `key-${round}`);
      const values = await Promise.all(
        Array.from({ length: 16 }, () =>
          readOrCreateFile(file, () => randomBytes(3_000_000).toString('base64url')),
        ),
      );
      expect(new Set(values).size).toBe(1);
      expect(values[0]).toHaveLength(4_000_000);
    }
    // No draft is left behind.
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});
