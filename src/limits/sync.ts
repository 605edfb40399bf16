import type { Peers } from '#rate-limit/peers.js';

/** The tag of {@link LimitsMessage}s on the cluster's IPC channels. */
export const LIMITS_MESSAGE = 'token-authority/limits';

/** What one API process tells the others: what it spent and which authentications failed. */
export interface LimitsMessage {
  readonly kind: typeof LIMITS_MESSAGE;
  /** [client id, units] spent since the last message. */
  readonly spent: ReadonlyArray<readonly [string, number]>;
  /** [space id, units] spent since the last message. */
  readonly spentBySpace: ReadonlyArray<readonly [string, number]>;
  readonly failedAuth: readonly string[];
  readonly failedLogin: readonly string[];
  /** Authorization requests (domain and address) since the last message; absent from older replicas. */
  readonly authorizing?: readonly string[];
}

/** Whether an IPC message is a {@link LimitsMessage}. */
export function isLimitsMessage(message: unknown): message is LimitsMessage {
  return (message as { kind?: unknown } | null)?.kind === LIMITS_MESSAGE;
}

/**
 * How limits reach the other API processes: through the cluster's primary (one host), or through
 * Postgres (every replica of a deployment; postgres-peers.ts).
 */
export type LimitsPeers = Peers<LimitsMessage>;

/** Collects what this process spent and publishes it at most every `intervalMs`. */
export function syncWithPeers(peers: LimitsPeers, intervalMs: number) {
  let spent = new Map<string, number>();
  let spentBySpace = new Map<string, number>();
  let failedAuth: string[] = [];
  let failedLogin: string[] = [];
  let authorizing: string[] = [];
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    timer = undefined;
    peers.publish({
      kind: LIMITS_MESSAGE,
      spent: [...spent],
      spentBySpace: [...spentBySpace],
      failedAuth,
      failedLogin,
      authorizing,
    });
    spent = new Map();
    spentBySpace = new Map();
    failedAuth = [];
    failedLogin = [];
    authorizing = [];
  };
  const soon = () => {
    timer ??= setTimeout(flush, intervalMs).unref();
  };
  return {
    spent(clientId: string, spaceId: string) {
      spent.set(clientId, (spent.get(clientId) ?? 0) + 1);
      spentBySpace.set(spaceId, (spentBySpace.get(spaceId) ?? 0) + 1);
      soon();
    },
    failedAuth(key: string) {
      failedAuth.push(key);
      soon();
    },
    failedLogin(ip: string) {
      failedLogin.push(ip);
      soon();
    },
    authorizing(key: string) {
      authorizing.push(key);
      soon();
    },
  };
}
