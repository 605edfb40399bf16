import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuSeconds, mainThreadTimes } from '../../src/observability/proc.js';

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('mainThreadTimes (the bench reads the API event loop with it)', () => {
  it('counts the main thread spinning and not another thread of the same process', async () => {
    const main0 = await mainThreadTimes([process.pid]);
    const all0 = await cpuSeconds(process.pid);
    spin(300);
    const main1 = await mainThreadTimes([process.pid]);
    const all1 = await cpuSeconds(process.pid);
    expect(main1.running - main0.running).toBeGreaterThan(0.2);

    // A worker thread spins for 400 ms while the main thread waits for it.
    const worker = new Worker(
      'const until = performance.now() + 400; while (performance.now() < until);',
      { eval: true },
    );
    await new Promise((resolve) => worker.once('exit', resolve));
    const main2 = await mainThreadTimes([process.pid]);
    expect((await cpuSeconds(process.pid)) - all1).toBeGreaterThan(0.3);
    expect(main2.running - main1.running).toBeLessThan(0.15);
    // The process's own clock (10 ms ticks) saw at least what the main thread ran.
    expect(all1 - all0).toBeGreaterThanOrEqual(main1.running - main0.running - 0.02);
    expect(main2.waiting).toBeGreaterThanOrEqual(main0.waiting);
  });

  it('is 0 for a process that is gone', async () => {
    expect(await mainThreadTimes([2 ** 22 + 12345])).toEqual({ running: 0, waiting: 0 });
  });
});
