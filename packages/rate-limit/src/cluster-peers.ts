import cluster, { type Worker } from 'node:cluster';
import type { Peers } from './peers.js';

/** In a worker of `node:cluster`: its peers, the other workers, reached through the primary. */
export function workerPeers<Message>(
  isMessage: (message: unknown) => message is Message,
): Peers<Message> | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  return {
    publish: (message) => {
      if (process.connected) process.send!(message);
    },
    subscribe: (receive) =>
      void process.on('message', (message) => {
        if (isMessage(message)) receive(message);
      }),
  };
}

/** In the primary: passes every worker's message to the other workers. */
export function relayPeers(
  isMessage: (message: unknown) => boolean,
  workers: () => Iterable<Worker | undefined>,
): void {
  cluster.on('message', (from, message) => {
    if (!isMessage(message)) return;
    for (const worker of workers()) {
      if (worker && worker !== from && worker.isConnected()) worker.send(message);
    }
  });
}
