import { describe, expect, it } from 'vitest';
import { progressOnStderr } from '#audit-log/cli/progress.js';

function fakeStream(isTTY: boolean) {
  const written: string[] = [];
  return {
    written,
    stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream,
  };
}

describe('progress on stderr', () => {
  it('prints done / total, percent and rate at most once per interval, and always the last line', () => {
    let now = 0;
    const { written, stream } = fakeStream(false);
    const progress = progressOnStderr(
      'verify',
      { total: 4000, unit: 'links', intervalMs: 1000 },
      stream,
      () => now,
    );
    now = 1000;
    progress.update(1000);
    now = 1500;
    progress.update(1500); // within the interval: not printed
    now = 2000;
    progress.update(2000);
    progress.finish(4000);
    expect(written).toEqual([
      'verify: 1,000 / 4,000 links (25%), 1,000/s\n',
      'verify: 2,000 / 4,000 links (50%), 1,000/s\n',
      'verify: 4,000 / 4,000 links (100%), 2,000/s, done in 2.0 s\n',
    ]);
  });

  it('rewrites one line in place on a terminal', () => {
    let now = 0;
    const { written, stream } = fakeStream(true);
    const progress = progressOnStderr(
      'rebuild',
      { unit: 'events', intervalMs: 10 },
      stream,
      () => now,
    );
    now = 20;
    progress.update(5);
    progress.finish(5);
    expect(written[0]).toBe('\r\u001b[2Krebuild: 5 events, 250/s');
    expect(written[1]).toBe('\r\u001b[2Krebuild: 5 events, 250/s, done in 0.0 s\n');
  });
});
