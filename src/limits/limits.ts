import { syncWithPeers, type LimitsPeers } from './sync.js';
import { SlidingWindowBudgets, type BudgetDecision } from '#rate-limit/sliding-window.js';
import { RateLimitedError } from '../errors/errors.js';

/** What the RateLimit headers of a served request say. */
export interface RateLimitState {
  readonly policy: 'client';
  readonly quota: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  readonly resetSeconds: number;
}

/** Settings of {@link createLimits}. */
export interface LimitSettings {
  /** Per client, every client-authenticated endpoint together (CLIENT_RATE_LIMIT_PER_MINUTE). */
  readonly clientPerMinute: number;
  /** Per space, all its clients together; no client's own limit may exceed it. */
  readonly spacePerMinute: number;
  /** Failed client authentications per (client, source IP) (FAILED_AUTH_LIMIT_PER_MINUTE). */
  readonly failedAuthPerMinute: number;
  /** Keys each budget remembers at most (LIMITER_MAX_KEYS). */
  readonly maxKeys: number;
  readonly now?: () => number;
  /** The other API processes of this host (API_WORKERS), whose spending we add to ours. */
  readonly peers?: LimitsPeers;
  /** How often what we spent is told to the peers (ms). */
  readonly syncIntervalMs?: number;
}

export { LIMITS_MESSAGE, isLimitsMessage, type LimitsMessage, type LimitsPeers } from './sync.js';

/**
 * The budgets of one API process, all in memory: no database write on the hot path. The API
 * processes of a deployment (workers and replicas, LIMITS_SYNC=postgres; or one host's workers,
 * LIMITS_SYNC=host) tell each other what they spent every few milliseconds, so a budget holds
 * across them (overshoot: what the others spent since their last message; docs/operations.md).
 */
export interface Limits {
  /**
   * Spends one unit of an authenticated client's budget and of its space's (a token, an
   * introspection, a revocation). RateLimitedError when either is spent, so one tenant flooding
   * at its ceiling leaves the others theirs; failed authentications never reach here.
   */
  clientRequest(client: {
    readonly clientId: string;
    readonly spaceId: string;
    readonly rateLimitPerMinute: number | null;
    /** Whose budget it spends when not its own (Credential.budgetKey). */
    readonly budgetKey?: string;
  }): RateLimitState;
  /** RateLimitedError when this (client, IP) failed too often to have its secret checked. */
  assertClientNotLockedOut(clientId: string, ip: string): void;
  /** Whether it is: the same budget, asked without an error. */
  clientLockedOut(clientId: string, ip: string): boolean;
  failedClientAuthentication(clientId: string, ip: string): void;
  /** An authorization request (anyone's) for a client from an address: not its token budget. */
  authorizationRequest(client: string, ip: string): void;
  /** The same budget for bad login tokens, per source IP. */
  assertLoginNotLockedOut(ip: string): void;
  failedLogin(ip: string): void;
  /** Keys held per budget (for /metrics). */
  sizes(): Readonly<Record<'clients' | 'failed_auth' | 'failed_login', number>>;
  /**
   * Requests refused for a spent client budget, per client, since `since` (this process's start),
   * for the dashboard. Bounded like the budgets: the least recently refused are forgotten first.
   */
  refusals(): { readonly since: Date; readonly byClient: ReadonlyMap<string, number> };
  /** Stops telling and hearing the peers (shutdown). */
  close(): Promise<void>;
}

const WINDOW_SECONDS = 60;

/** A budget's refusal as the service's error (a 429 with its RateLimit headers). */
export function overBudget(
  message: string,
  policy: RateLimitedError['limit']['policy'],
  quota: number,
  decision: Extract<BudgetDecision, { allowed: false }>,
): RateLimitedError {
  const { retryAfterSeconds } = decision;
  return new RateLimitedError(message, {
    policy,
    quota,
    windowSeconds: WINDOW_SECONDS,
    retryAfterSeconds,
  });
}

/** Authorization requests a minute per client and address, across replicas: a person's pace. */
const AUTHORIZE_PER_MINUTE = 30;

/** Creates the budgets; see {@link Limits}. */
export function createLimits(settings: LimitSettings): Limits {
  const options = { maxKeys: settings.maxKeys, now: settings.now };
  const clients = new SlidingWindowBudgets(options);
  const spaces = new SlidingWindowBudgets(options);
  const failedAuth = new SlidingWindowBudgets(options);
  const failedLogin = new SlidingWindowBudgets(options);
  const authorizing = new SlidingWindowBudgets(options);
  const sync = settings.peers ? syncWithPeers(settings.peers, settings.syncIntervalMs ?? 20) : null;
  if (settings.peers) {
    settings.peers.subscribe((message) => {
      for (const [clientId, units] of message.spent) clients.add(clientId, units);
      for (const [spaceId, units] of message.spentBySpace) spaces.add(spaceId, units);
      for (const key of message.failedAuth) failedAuth.add(key, 1);
      for (const ip of message.failedLogin) failedLogin.add(ip, 1);
      for (const key of message.authorizing ?? []) authorizing.add(key, 1);
    });
  }
  const since = new Date(settings.now?.() ?? Date.now());
  const refused = new Map<string, number>();
  const countRefusal = (clientId: string) => {
    const count = (refused.get(clientId) ?? 0) + 1;
    refused.delete(clientId);
    refused.set(clientId, count);
    if (refused.size > settings.maxKeys) refused.delete(refused.keys().next().value!);
  };
  const lockedOut = (
    budgets: SlidingWindowBudgets,
    key: string,
    policy: 'failed-auth' | 'login-failures',
    what: string,
  ) => {
    const decision = budgets.peek(key, settings.failedAuthPerMinute);
    if (decision.allowed) return;
    const message = `too many failed ${what} from this address; retry later`;
    throw overBudget(message, policy, settings.failedAuthPerMinute, decision);
  };
  return {
    clientRequest({ clientId: own, spaceId, rateLimitPerMinute, budgetKey }) {
      const clientId = budgetKey ?? own;
      const space = spaces.peek(spaceId, settings.spacePerMinute);
      if (!space.allowed) {
        countRefusal(clientId);
        const message = 'this space has used its request budget; retry later';
        throw overBudget(message, 'space', settings.spacePerMinute, space);
      }
      const quota = rateLimitPerMinute ?? settings.clientPerMinute;
      const decision = clients.take(clientId, quota);
      if (!decision.allowed) {
        countRefusal(clientId);
        const message = 'this client has used its request budget; retry later';
        throw overBudget(message, 'client', quota, decision);
      }
      spaces.add(spaceId, 1);
      sync?.spent(clientId, spaceId);
      return {
        policy: 'client',
        quota,
        windowSeconds: WINDOW_SECONDS,
        remaining: decision.remaining,
        resetSeconds: decision.resetSeconds,
      };
    },
    assertClientNotLockedOut: (clientId, ip) =>
      lockedOut(failedAuth, `${clientId}\u0000${ip}`, 'failed-auth', 'client authentications'),
    clientLockedOut: (clientId, ip) =>
      !failedAuth.peek(`${clientId}\u0000${ip}`, settings.failedAuthPerMinute).allowed,
    failedClientAuthentication(clientId, ip) {
      const key = `${clientId}\u0000${ip}`;
      failedAuth.add(key, 1);
      sync?.failedAuth(key);
    },
    authorizationRequest(client, ip) {
      const key = `${client}\u0000${ip}`;
      const decision = authorizing.take(key, AUTHORIZE_PER_MINUTE);
      if (decision.allowed) return sync?.authorizing(key);
      const message = 'too many authorization requests for this client from this address';
      throw overBudget(message, 'authorize', AUTHORIZE_PER_MINUTE, decision);
    },
    assertLoginNotLockedOut: (ip) => lockedOut(failedLogin, ip, 'login-failures', 'login tokens'),
    failedLogin(ip) {
      failedLogin.add(ip, 1);
      sync?.failedLogin(ip);
    },
    sizes: () => ({
      clients: clients.size + spaces.size,
      failed_auth: failedAuth.size + authorizing.size,
      failed_login: failedLogin.size,
    }),
    refusals: () => ({ since, byClient: refused }),
    close: async () => {
      await settings.peers?.close?.();
    },
  };
}
