import type { Worker } from 'node:worker_threads';
import type { JWK } from 'jose';
import { z } from 'zod';
import { PKCS11_ERRORS } from './errors.js';
import type { Pkcs11Request, Pkcs11Result } from './protocol.js';
import type { Pkcs11Settings } from './settings.js';
import type { Pkcs11Signer, Pkcs11SignerOptions } from './signer.js';
import { startSignerThread } from './signer-thread.js';
import { ED25519_ALG } from './token-session.js';

type RequestBody = Pkcs11Request extends infer R
  ? R extends Pkcs11Request
    ? Omit<R, 'id'>
    : never
  : never;
interface Waiter {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}
interface Queued {
  readonly request: Pkcs11Request;
  readonly waiter: Waiter;
}

const generatedSchema = z.object({
  kid: z.string(),
  publicJwk: z.record(z.string(), z.unknown()),
});

/**
 * Opens the token in a thread of its own (worker.ts) and returns the signer. Everything asked
 * while earlier batches are on their way goes out as the next batch, at most `maxInFlightBatches`
 * at once: the thread signs one batch while the next gathers, as a group commit writes, in the
 * queue the user gives (a per-space share, a deadline per request). One session whatever the number of keys. A wrong PIN, a missing token or
 * library is the `setting` error naming it; everything else that cannot sign, `unavailable`.
 *
 * A batch unanswered within `timeoutMs` means the thread is stuck in the HSM: what it holds
 * fails, it is left to end when the call returns, and a new thread logs in for what waits. A
 * native call cannot be interrupted, so each stuck thread lingers: at `maxStuckThreads` requests
 * fail at once, no new thread starts until a stuck call returns (then one logs in: the probe),
 * and `health()` says `stuck` (a process to restart): a long stall costs bounded threads.
 */
export async function openPkcs11Signer(
  settings: Pkcs11Settings,
  options: Pkcs11SignerOptions,
): Promise<Pkcs11Signer> {
  const errors = options.errors ?? PKCS11_ERRORS;
  const maxBatch = options.maxBatch ?? 256;
  const maxInFlight = options.maxInFlightBatches ?? 2;
  const timeoutMs = options.timeoutMs ?? 5000;
  const maxStuck = options.maxStuckThreads ?? 4;
  // Threads left inside an HSM call that outlived its deadline, until the call returns.
  const stuck = new Set<Worker>();
  const queue = options.createQueue<Queued>((items) => {
    const error = errors.unavailable(`the PKCS#11 signer took no request for ${timeoutMs} ms`);
    for (const { waiter } of items) waiter.reject(error);
  });
  const waiting = new Map<number, Waiter>();
  const inFlight: Array<{ readonly timer: NodeJS.Timeout; readonly since: number }> = [];
  const stats = { requests: 0, batches: 0, largestBatch: 0, replaced: 0 };
  let nextId = 0;
  let flushScheduled = false;
  let closed = false;
  let worker: Worker | undefined;
  let restarting = false;

  const start = () =>
    startSignerThread(settings, timeoutMs, errors, {
      results: (from, results) => (from === worker ? answered(results) : undefined),
      abandoned: (from) => void stuck.add(from),
      exited: (from, cause) => {
        // A stuck call returned: the HSM answers again, so a new login may be tried.
        if (stuck.delete(from)) return void (worker ? undefined : restart());
        if (from !== worker) return; // a thread already replaced
        drop(errors.unavailable('the PKCS#11 signer stopped', cause));
        restart();
      },
    });

  /** Fails everything posted to the thread with `error` and lets go of it; returns it. */
  function drop(error: Error): Worker | undefined {
    for (const batch of inFlight.splice(0)) clearTimeout(batch.timer);
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
    const dropped = worker;
    worker = undefined;
    return dropped;
  }

  /** A batch outlived the deadline: the thread is stuck in the HSM; another logs in. */
  function stalled() {
    const stuckOne = drop(
      errors.unavailable(`the PKCS#11 token did not sign within ${timeoutMs} ms`),
    );
    stats.replaced++;
    // Ends once the stuck call returns, if it ever does; nothing waits for it.
    if (stuckOne) {
      stuck.add(stuckOne);
      void stuckOne.terminate();
    }
    restart();
  }

  /** A new thread for the requests waiting; they fail if it cannot log in. */
  function restart() {
    if (restarting || closed) return;
    if (stuck.size >= maxStuck) return failWaiting(tooStuck());
    restarting = true;
    start().then(
      (fresh) => {
        restarting = false;
        if (closed) return void fresh.terminate();
        worker = fresh;
        schedule();
      },
      (cause: unknown) => {
        restarting = false;
        failWaiting(errors.unavailable('the PKCS#11 signer cannot restart', cause));
      },
    );
  }

  function failWaiting(error: Error) {
    for (const { waiter } of queue.take(Infinity)) waiter.reject(error);
  }

  const tooStuck = () =>
    errors.unavailable(`the PKCS#11 token stalls: ${stuck.size} signer threads are stuck in it`);

  function answered(results: readonly Pkcs11Result[]) {
    clearTimeout(inFlight.shift()?.timer);
    for (const result of results) {
      const waiter = waiting.get(result.id);
      waiting.delete(result.id);
      if (!waiter) continue;
      if (result.ok) waiter.resolve(result.value);
      else waiter.reject(new Error(`PKCS#11: ${result.message}`));
    }
    schedule();
  }

  function schedule() {
    if (flushScheduled || queue.size() === 0 || inFlight.length >= maxInFlight) return;
    flushScheduled = true;
    // A microtask later: every request made in this turn of the event loop joins the batch.
    queueMicrotask(flush);
  }

  function flush() {
    flushScheduled = false;
    if (!worker) return restart();
    while (inFlight.length < maxInFlight && queue.size() > 0) {
      const batch = queue.take(maxBatch);
      for (const { request, waiter } of batch) waiting.set(request.id, waiter);
      inFlight.push({ timer: setTimeout(stalled, timeoutMs), since: Date.now() });
      stats.batches++;
      stats.largestBatch = Math.max(stats.largestBatch, batch.length);
      worker.postMessage({ type: 'batch', requests: batch.map(({ request }) => request) });
    }
  }

  /** Queues a request of `spaceId` (its share of the queue); key management is `keySpace`'s. */
  function submit(body: RequestBody, spaceId = options.keySpace): Promise<unknown> {
    if (closed) return Promise.reject(errors.unavailable('the PKCS#11 signer is closed'));
    // At the bound no thread is left to wait in the token: nothing waits a deadline for it.
    if (stuck.size >= maxStuck) return Promise.reject(tooStuck());
    let admitted = false;
    const answer = new Promise((resolve, reject) => {
      const request = { ...body, id: nextId++ } as Pkcs11Request;
      admitted = queue.offer(spaceId, { request, waiter: { resolve, reject } });
    });
    if (!admitted) {
      return Promise.reject(errors.unavailable('too many signatures wait for the PKCS#11 token'));
    }
    stats.requests++;
    schedule();
    return answer;
  }

  worker = await start();
  return {
    backend: 'pkcs11',
    async sign(kid, signingInput, spaceId) {
      // A copy of just these bytes: a small Buffer is a view of an 8 KiB pool, which posting it
      // would copy whole.
      const input = new Uint8Array(signingInput);
      const value = await submit({ op: 'sign', kid, input }, spaceId);
      const signature = z.instanceof(Uint8Array).parse(value);
      return Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength);
    },
    async generate() {
      const { kid, publicJwk } = generatedSchema.parse(await submit({ op: 'generate' }));
      return {
        kid,
        alg: ED25519_ALG,
        publicJwk: publicJwk as JWK,
        stored: { hsm: 'pkcs11', token: settings.tokenLabel },
      };
    },
    async discard(kid) {
      await submit({ op: 'destroy', kid });
    },
    async publicJwk(kid) {
      const value = await submit({ op: 'public-jwk', kid });
      return value === null ? undefined : (generatedSchema.shape.publicJwk.parse(value) as JWK);
    },
    health() {
      if (closed) return { ok: false, reason: 'closed' };
      if (stuck.size >= maxStuck) return { ok: false, reason: 'stuck' };
      // Probed, a signer without a thread starts one: out of its load balancer, no request would.
      if (!worker) return (restart(), { ok: false, reason: 'restarting' });
      const stalling = (inFlight[0]?.since ?? Infinity) < Date.now() - timeoutMs / 2;
      return stalling ? { ok: false, reason: 'stalled' } : { ok: true };
    },
    stats: () => ({ ...stats, stuckThreads: stuck.size }),
    async close() {
      if (closed) return;
      closed = true;
      for (const { waiter } of queue.take(Infinity)) {
        waiter.reject(errors.unavailable('the PKCS#11 signer is closed'));
      }
      const last = worker;
      if (!last) return;
      const exited = new Promise((resolve) => last.once('exit', resolve));
      last.postMessage({ type: 'close' });
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        exited,
        new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
      ]);
      // Left running, the timer would hold a closed signer's process open for timeoutMs.
      clearTimeout(timer);
      await last.terminate();
    },
  };
}
