import type { Worker } from 'node:worker_threads';
import type { JWK } from 'jose';
import { z } from 'zod';
import { ConfigError } from '../../config/config.js';
import { UnavailableError } from '../../errors/errors.js';
import { ACCESS_TOKEN_ALG } from '../algorithms.js';
import type { TokenSigner } from '../token-signer.js';
import { fromWorkerSchema, type Pkcs11Request, type Pkcs11Result } from './protocol.js';
import type { Pkcs11Settings } from './settings.js';
import { startSiblingWorker } from './start-worker.js';

/** How the event loop's side of the PKCS#11 signer has batched its work so far. */
export interface Pkcs11SignerStats {
  readonly requests: number;
  readonly batches: number;
  readonly largestBatch: number;
}

/** A {@link TokenSigner} whose keys live in a PKCS#11 token, and its batching figures. */
export interface Pkcs11Signer extends TokenSigner {
  stats(): Pkcs11SignerStats;
}

/** Bounds on the signer's queue, in the append queue's terms. */
export interface Pkcs11SignerOptions {
  /** Requests waiting for a batch; past it a request is refused (UnavailableError, 503). */
  readonly maxQueued?: number;
  /** Requests in one message to the thread. */
  readonly maxBatch?: number;
  /** Batches posted and unanswered: two keep the thread busy while one answer travels back. */
  readonly maxInFlightBatches?: number;
  /** A batch (or the login) unanswered this long fails its requests: the HSM is stalled. */
  readonly timeoutMs?: number;
}

type RequestBody = Pkcs11Request extends infer R
  ? R extends Pkcs11Request
    ? Omit<R, 'id'>
    : never
  : never;
interface Waiter {
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

const generatedSchema = z.object({
  kid: z.string(),
  publicJwk: z.record(z.string(), z.unknown()),
});

/**
 * Opens the token in a thread of its own (worker.ts) and returns the signer. Everything asked
 * while earlier batches are on their way goes out as the next batch, at most `maxInFlightBatches`
 * at once: the thread signs one batch while the next waits in its queue, as the append queue
 * writes one batch while the next gathers. One session whatever the number of keys. A wrong PIN,
 * a missing token or library is a ConfigError naming the setting.
 */
export async function openPkcs11Signer(
  settings: Pkcs11Settings,
  options: Pkcs11SignerOptions = {},
): Promise<Pkcs11Signer> {
  const maxQueued = options.maxQueued ?? 10_000;
  const maxBatch = options.maxBatch ?? 256;
  const maxInFlight = options.maxInFlightBatches ?? 2;
  const timeoutMs = options.timeoutMs ?? 5000;
  const queue: Array<{ readonly request: Pkcs11Request; readonly waiter: Waiter }> = [];
  const waiting = new Map<number, Waiter>();
  const inFlight: Array<{ readonly ids: readonly number[]; readonly timer: NodeJS.Timeout }> = [];
  const stats = { requests: 0, batches: 0, largestBatch: 0 };
  let nextId = 0;
  let flushScheduled = false;
  let closed = false;
  let worker: Worker | undefined;
  let restarting = false;

  function start(): Promise<Worker> {
    const started = startSiblingWorker('worker', settings);
    // The thread never holds the process open by itself; a batch's timer does while it is out.
    started.unref();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        void started.terminate();
        reject(new UnavailableError(`the PKCS#11 token did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      started.on('message', (raw: unknown) => {
        const message = fromWorkerSchema.parse(raw);
        if (message.type === 'ready') {
          clearTimeout(timer);
          resolve(started);
        } else if (message.type === 'failed') {
          clearTimeout(timer);
          reject(new ConfigError([`${message.setting}: ${message.message}`]));
        } else if (message.type === 'results') answered(message.results);
      });
      started.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
        gone(started, error);
      });
      started.on('exit', () => gone(started, new Error('the PKCS#11 thread exited')));
    });
  }

  /** The thread died: everything it held fails, and the next request starts another. */
  function gone(which: Worker, cause: Error) {
    if (which !== worker) return;
    for (const batch of inFlight.splice(0)) clearTimeout(batch.timer);
    const error = new UnavailableError('the PKCS#11 signer stopped', { cause });
    for (const waiter of waiting.values()) waiter.reject(error);
    waiting.clear();
    worker = undefined;
  }

  /** A new thread for the requests queued after one died; they fail if it cannot log in. */
  function restart() {
    restarting = true;
    start().then(
      (fresh) => {
        restarting = false;
        worker = fresh;
        schedule();
      },
      (cause: unknown) => {
        restarting = false;
        const error = new UnavailableError('the PKCS#11 signer cannot restart', { cause });
        for (const { waiter } of queue.splice(0)) waiter.reject(error);
      },
    );
  }

  function answered(results: readonly Pkcs11Result[]) {
    clearTimeout(inFlight.shift()?.timer);
    for (const result of results) {
      const waiter = waiting.get(result.id);
      waiting.delete(result.id);
      if (!waiter) continue; // its batch timed out
      if (result.ok) waiter.resolve(result.value);
      else waiter.reject(new Error(`PKCS#11: ${result.message}`));
    }
    schedule();
  }

  function schedule() {
    if (flushScheduled || queue.length === 0 || inFlight.length >= maxInFlight) return;
    flushScheduled = true;
    // A microtask later: every request made in this turn of the event loop joins the batch.
    queueMicrotask(flush);
  }

  function flush() {
    flushScheduled = false;
    if (!worker) return restarting || closed ? undefined : restart();
    while (inFlight.length < maxInFlight && queue.length > 0) {
      const batch = queue.splice(0, maxBatch);
      const ids = batch.map(({ request, waiter }) => (waiting.set(request.id, waiter), request.id));
      const timer = setTimeout(() => expire(ids), timeoutMs);
      inFlight.push({ ids, timer });
      stats.batches++;
      stats.largestBatch = Math.max(stats.largestBatch, batch.length);
      worker.postMessage({ type: 'batch', requests: batch.map(({ request }) => request) });
    }
  }

  function expire(ids: readonly number[]) {
    const error = new UnavailableError(`the PKCS#11 token did not sign within ${timeoutMs} ms`);
    for (const id of ids) {
      waiting.get(id)?.reject(error);
      waiting.delete(id);
    }
  }

  function submit(body: RequestBody): Promise<unknown> {
    if (closed) return Promise.reject(new UnavailableError('the PKCS#11 signer is closed'));
    if (queue.length >= maxQueued) {
      return Promise.reject(new UnavailableError('too many signatures wait for the PKCS#11 token'));
    }
    stats.requests++;
    return new Promise((resolve, reject) => {
      queue.push({
        request: { ...body, id: nextId++ } as Pkcs11Request,
        waiter: { resolve, reject },
      });
      schedule();
    });
  }

  worker = await start();
  return {
    backend: 'pkcs11',
    async sign(kid, signingInput) {
      // A copy of just these bytes: a small Buffer is a view of an 8 KiB pool, which posting it
      // would copy whole.
      const value = await submit({ op: 'sign', kid, input: new Uint8Array(signingInput) });
      const signature = z.instanceof(Uint8Array).parse(value);
      return Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength);
    },
    async generate() {
      const { kid, publicJwk } = generatedSchema.parse(await submit({ op: 'generate' }));
      return {
        kid,
        alg: ACCESS_TOKEN_ALG,
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
    stats: () => ({ ...stats }),
    async close() {
      if (closed) return;
      closed = true;
      for (const { waiter } of queue.splice(0)) {
        waiter.reject(new UnavailableError('the PKCS#11 signer is closed'));
      }
      const last = worker;
      if (!last) return;
      const exited = new Promise((resolve) => last.once('exit', resolve));
      last.postMessage({ type: 'close' });
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
      await last.terminate();
    },
  };
}
