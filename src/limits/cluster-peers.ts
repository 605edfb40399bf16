import type { Worker } from 'node:cluster';
import { relayPeers, workerPeers as peersOf } from '#rate-limit/cluster-peers.js';
import { isLimitsMessage, type LimitsPeers } from './limits.js';

/** In an API worker of `npm start`: its peers are reached through the primary. */
export const workerPeers = (): LimitsPeers | undefined => peersOf(isLimitsMessage);

/** In the primary: passes every worker's limits message to the other workers. */
export const relayLimits = (workers: () => Iterable<Worker | undefined>): void =>
  relayPeers(isLimitsMessage, workers);
