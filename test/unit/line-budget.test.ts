import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LINE_BUDGET } from '../../eslint.config.js';

/** Every .ts file under src/ and its lines as `wc -l` counts them: its newlines. */
const SOURCES = readdirSync('src', { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => path.join('src', file))
  .map((file) => ({ file, lines: readFileSync(file, 'utf8').split('\n').length - 1 }));

describe("src/'s line budget (issue 52, eslint.config.js LINE_BUDGET)", () => {
  it(`is at most ${LINE_BUDGET.total} lines of TypeScript in all`, () => {
    const total = SOURCES.reduce((sum, { lines }) => sum + lines, 0);
    expect(
      total,
      `src/ is ${total} lines of TypeScript (find src -name '*.ts' | xargs cat | wc -l), ` +
        `${total - LINE_BUDGET.total} over the budget of ${LINE_BUDGET.total}`,
    ).toBeLessThanOrEqual(LINE_BUDGET.total);
  });

  it(`has no .ts file over ${LINE_BUDGET.perFile} lines`, () => {
    const over = SOURCES.filter(({ lines }) => lines > LINE_BUDGET.perFile);
    expect(over, `files over ${LINE_BUDGET.perFile} lines`).toEqual([]);
  });
});
