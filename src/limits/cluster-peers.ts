import cluster, { type Worker } from 'node:cluster';
import { isLimitsMessage, type LimitsPeers } from './limits.js';

/** In an API worker of `npm start`: its peers are reached through the primary. */
export function workerPeers(): LimitsPeers | undefined {
  if (!cluster.isWorker || !process.send) return undefined;
  return {
    publish: (message) => {
      if (process.connected) process.send!(message);
    },
    subscribe: (receive) =>
      void process.on('message', (message) => {
        if (isLimitsMessage(message)) receive(message);
      }),
  };
}

/** In the primary: passes every worker's limits message to the other workers. */
export function relayLimits(workers: () => Iterable<Worker | undefined>): void {
  cluster.on('message', (from, message) => {
    if (!isLimitsMessage(message)) return;
    for (const worker of workers()) {
      if (worker && worker !== from && worker.isConnected()) worker.send(message);
    }
  });
}
