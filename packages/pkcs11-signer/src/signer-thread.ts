import type { Worker } from 'node:worker_threads';
import type { Pkcs11Errors } from './errors.js';
import { fromWorkerSchema, type Pkcs11Result } from './protocol.js';
import type { Pkcs11Settings } from './settings.js';
import { startSiblingWorker } from './start-worker.js';

/** What a signer thread tells its signer after login: each batch's answers, and its end. */
export interface SignerThreadEvents {
  readonly results: (from: Worker, results: readonly Pkcs11Result[]) => void;
  readonly exited: (from: Worker, cause: Error) => void;
  /** A login that timed out: the thread is ended, and lingers until the HSM's call returns. */
  readonly abandoned: (from: Worker) => void;
}

/**
 * Starts the signer's thread (worker.ts) and resolves once it is logged in to the token. A wrong
 * PIN, a missing token or library is `errors.setting` naming the setting; no answer within
 * `timeoutMs` (a stalled HSM) is `errors.unavailable`, and the thread is ended.
 */
export function startSignerThread(
  settings: Pkcs11Settings,
  timeoutMs: number,
  errors: Pkcs11Errors,
  events: SignerThreadEvents,
): Promise<Worker> {
  const started = startSiblingWorker('worker', settings);
  // The thread never holds the process open by itself; a batch's timer does while it is out.
  started.unref();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      events.abandoned(started);
      void started.terminate();
      reject(errors.unavailable(`the PKCS#11 token did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    started.on('message', (raw: unknown) => {
      const message = fromWorkerSchema.parse(raw);
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(started);
      } else if (message.type === 'failed') {
        clearTimeout(timer);
        reject(errors.setting(message.setting, message.message));
      } else if (message.type === 'results') events.results(started, message.results);
    });
    started.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
      events.exited(started, error);
    });
    started.on('exit', () => events.exited(started, new Error('the PKCS#11 thread exited')));
  });
}
