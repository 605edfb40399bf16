import type { Worker } from 'node:worker_threads';
import { ConfigError } from '../../config/config.js';
import { UnavailableError } from '../../errors/errors.js';
import { fromWorkerSchema, type Pkcs11Result } from './protocol.js';
import type { Pkcs11Settings } from './settings.js';
import { startSiblingWorker } from './start-worker.js';

/** What a signer thread tells its signer after login: each batch's answers, and its end. */
export interface SignerThreadEvents {
  readonly results: (from: Worker, results: readonly Pkcs11Result[]) => void;
  readonly exited: (from: Worker, cause: Error) => void;
}

/**
 * Starts the signer's thread (worker.ts) and resolves once it is logged in to the token. A wrong
 * PIN, a missing token or library is a ConfigError naming the setting; no answer within
 * `timeoutMs` (a stalled HSM) is an UnavailableError, and the thread is ended.
 */
export function startSignerThread(
  settings: Pkcs11Settings,
  timeoutMs: number,
  events: SignerThreadEvents,
): Promise<Worker> {
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
