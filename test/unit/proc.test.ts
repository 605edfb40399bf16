import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { cpuSeconds, mainThreadTimes } from '../../tools/reliability/proc.js';

/** This thread's own CPU clock, in seconds (schedstat's first field: ns on a CPU). */
const threadCpu = (): number =>
  Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;

// Spins until the main thread itself has run for `seconds` of CPU: wall time is what a busy
// machine takes away, so a spin bounded by it proves nothing about CPU.
const spinMainThread = (seconds: number) => {
  const until = threadCpu() + seconds;
  while (threadCpu() < until);
};

// Spins a worker thread until the process's CPU clock has advanced by `seconds`: the main thread
// only waits meanwhile, so the advance is the worker's.
const spinWorker = (seconds: number) =>
  new Promise((resolve, reject) => {
    const worker = new Worker(
      `const start = process.cpuUsage();
       const used = () => { const u = process.cpuUsage(start); return (u.user + u.system) / 1e6; };
       while (used() < ${seconds});`,
      { eval: true },
    );
    worker.once('error', reject);
    worker.once('exit', resolve);
  });

describe('mainThreadTimes (the bench reads the API event loop with it)', () => {
  it('counts the main thread spinning and not another thread of the same process', async () => {
    // Held to the thread's own CPU clock read beside it, not to a figure a busy machine could
    // stretch: both count CPU, never wall time.
    const main0 = await mainThreadTimes([process.pid]);
    const own0 = threadCpu();
    const all0 = await cpuSeconds(process.pid);
    spinMainThread(0.3);
    const main1 = await mainThreadTimes([process.pid]);
    const own1 = threadCpu();
    const all1 = await cpuSeconds(process.pid);
    expect(main1.running - main0.running).toBeCloseTo(own1 - own0, 1);

    // A worker thread runs 0.4 s of CPU while the main thread waits for it: the process's clock
    // sees it, the main thread's count does not.
    await spinWorker(0.4);
    const main2 = await mainThreadTimes([process.pid]);
    const own2 = threadCpu();
    const all2 = await cpuSeconds(process.pid);
    expect(main2.running - main1.running).toBeCloseTo(own2 - own1, 1);
    expect(all2 - all1 - (own2 - own1)).toBeGreaterThan(0.3);
    // The process's own clock (10 ms ticks) saw at least what the main thread ran.
    expect(all1 - all0).toBeGreaterThanOrEqual(main1.running - main0.running - 0.02);
    expect(main2.waiting).toBeGreaterThanOrEqual(main0.waiting);
  });

  it('is 0 for a process that is gone', async () => {
    expect(await mainThreadTimes([2 ** 22 + 12345])).toEqual({ running: 0, waiting: 0 });
  });
});
