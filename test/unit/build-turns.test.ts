import { describe, expect, it } from 'vitest';
import { BuildTurns } from '../../src/http/build-turns.js';
import { UnavailableError } from '../../src/errors/errors.js';

/** A build that finishes when told to, recording that it started. */
function gate(started: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { finish, build: async () => (started.push(name), await done, name) };
}

const turns = (options: Partial<ConstructorParameters<typeof BuildTurns>[0]> = {}) =>
  new BuildTurns<string>({
    maxWaiting: 8,
    maxWaitingPerSpace: 3,
    share: 1,
    maxWaitMs: 60_000,
    ...options,
  });

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('status list builds take turns (src/http/build-turns.ts)', () => {
  it('given one space asking for three lists and another for one: the other goes second', async () => {
    const started: string[] = [];
    const queue = turns();
    const a1 = gate(started, 'a1');
    const builds = [
      queue.run('a', 'a1', a1.build),
      queue.run('a', 'a2', async () => (started.push('a2'), 'a2')),
      queue.run('a', 'a3', async () => (started.push('a3'), 'a3')),
      queue.run('b', 'b1', async () => (started.push('b1'), 'b1')),
    ];
    await flush();
    expect(started).toEqual(['a1']);
    a1.finish();
    await Promise.all(builds);
    expect(started).toEqual(['a1', 'b1', 'a2', 'a3']);
  });

  it('given a list asked for twice while built: it is built once, both callers answered', async () => {
    const started: string[] = [];
    const queue = turns();
    const only = gate(started, 'x');
    const both = [queue.run('a', 'x', only.build), queue.run('a', 'x', only.build)];
    only.finish();
    expect(await Promise.all(both)).toEqual(['x', 'x']);
    expect(started).toEqual(['x']);
  });

  it("given a space with all its turns taken: its next list is 503, another space's is not", async () => {
    const started: string[] = [];
    const queue = turns({ maxWaitingPerSpace: 2 });
    const first = gate(started, 'a1');
    const held = [queue.run('a', 'a1', first.build), queue.run('a', 'a2', first.build)];
    const refused = await queue.run('a', 'a3', first.build).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UnavailableError);
    expect((refused as UnavailableError).retryAfterSeconds).toBe(2);
    const other = queue.run('b', 'b1', async () => 'b1');
    first.finish();
    expect(await Promise.all([...held, other])).toEqual(['a1', 'a1', 'b1']);
  });

  it('given the process queue full: a new list of any space is 503', async () => {
    const started: string[] = [];
    const queue = turns({ maxWaiting: 2 });
    const first = gate(started, 'a1');
    const held = [queue.run('a', 'a1', first.build), queue.run('b', 'b1', first.build)];
    await expect(queue.run('c', 'c1', first.build)).rejects.toBeInstanceOf(UnavailableError);
    first.finish();
    await Promise.all(held);
  });

  it("given a share of a quarter: after a space's build of 100 ms its next waits 300 ms, another space's none", async () => {
    let clock = 0;
    const rests: number[] = [];
    const started: string[] = [];
    const queue = turns({
      share: 0.25,
      now: () => clock,
      sleep: async (ms) => {
        rests.push(ms);
        clock += ms;
      },
    });
    const slow = async (name: string) => (started.push(name), (clock += 100), name);
    await Promise.all([
      queue.run('a', 'a1', () => slow('a1')),
      queue.run('a', 'a2', () => slow('a2')),
      queue.run('b', 'b1', () => slow('b1')),
    ]);
    expect(started).toEqual(['a1', 'b1', 'a2']);
    // b1 went at once after a1; a2 waited what was left of a's 300 ms after b1's 100.
    expect(rests).toEqual([200]);
  });

  it('given a build stalled past the wait bound: its space is charged the bound, not the stall', async () => {
    let clock = 0;
    const rests: number[] = [];
    const queue = turns({
      share: 0.5,
      maxWaitMs: 50,
      now: () => clock,
      sleep: async (ms) => {
        rests.push(ms);
        clock += ms;
      },
    });
    const stalled = queue.run('a', 'a1', async () => {
      clock += 10_000;
      return 'a1';
    });
    await stalled;
    await queue.run('a', 'a2', async () => 'a2');
    expect(rests).toEqual([50]);
  });

  it('given a build that never ends: its caller is answered 503 at the wait bound', async () => {
    const queue = turns({ maxWaitMs: 50 });
    const never = queue.run('a', 'stuck', () => new Promise<string>(() => undefined));
    await expect(never).rejects.toThrow('still being built');
    // ...and the next list is not held behind it.
    expect(await queue.run('b', 'next', async () => 'next')).toBe('next');
  });

  it('given builds that never end: at the wait bound they leave the caps, so the space may build again', async () => {
    const queue = turns({ maxWaitMs: 30, maxWaitingPerSpace: 1 });
    await expect(
      queue.run('a', 'stuck', () => new Promise<string>(() => undefined)),
    ).rejects.toThrow('still being built');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await queue.run('a', 'next', async () => 'next')).toBe('next');
  });

  it("given a space resting with a list queued: another space's list goes at once, not after the rest", async () => {
    let clock = 0;
    const queue = turns({
      share: 0.01,
      now: () => clock,
      // A rest that would never end on its own.
      sleep: () => new Promise<void>(() => undefined),
    });
    await queue.run('a', 'a1', async () => ((clock += 100), 'a1'));
    void queue.run('a', 'a2', async () => 'a2').catch(() => undefined);
    expect(await queue.run('b', 'b1', async () => 'b1')).toBe('b1');
  });

  it('given four builds stalled past the bound: no fifth begins until one ends', async () => {
    const queue = turns({ maxWaitMs: 5, maxWaitingPerSpace: 8 });
    const stalls = ['s1', 's2', 's3', 's4'].map((key) =>
      queue.run(key, key, () => new Promise<string>(() => undefined)).catch(() => 'late'),
    );
    expect(await Promise.all(stalls)).toEqual(['late', 'late', 'late', 'late']);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await expect(queue.run('other', 'o1', async () => 'o1')).rejects.toThrow('stalled');
  });

  it('given a build that fails: its callers get its error, and the next list is built', async () => {
    const queue = turns();
    const failing = queue.run('a', 'bad', async () => {
      throw new Error('database away');
    });
    await expect(failing).rejects.toThrow('database away');
    expect(await queue.run('a', 'good', async () => 'good')).toBe('good');
  });
});
