import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { isLimitsMessage, type LimitsMessage, type LimitsPeers } from './limits.js';

/** The channel every API process of a deployment shares its spending on. */
export const LIMITS_CHANNEL = 'token_authority_limits';

// NOTIFY payloads must stay under 8,000 bytes; a message over this is sent in parts.
const MAX_PAYLOAD = 7000;

/** {@link LimitsPeers} over Postgres, and a way to stop listening. */
export interface PostgresPeers extends LimitsPeers {
  close(): Promise<void>;
}

/** Splits a message into parts whose JSON fits a NOTIFY payload. */
export function splitLimitsMessage(message: LimitsMessage, from: string): string[] {
  const payload = JSON.stringify({ from, message });
  const parts = [message.spent, message.spentBySpace, message.failedAuth, message.failedLogin];
  if (payload.length <= MAX_PAYLOAD || parts.every((part) => part.length <= 1)) return [payload];
  const half = <T>(list: readonly T[]) => [
    list.slice(0, list.length / 2),
    list.slice(list.length / 2),
  ];
  const [spentA, spentB] = half(message.spent);
  const [spaceA, spaceB] = half(message.spentBySpace);
  const [authA, authB] = half(message.failedAuth);
  const [loginA, loginB] = half(message.failedLogin);
  return [
    { ...message, spent: spentA!, spentBySpace: spaceA!, failedAuth: authA!, failedLogin: loginA! },
    { ...message, spent: spentB!, spentBySpace: spaceB!, failedAuth: authB!, failedLogin: loginB! },
  ].flatMap((part) => splitLimitsMessage(part, from));
}

/**
 * Every API process of a deployment — replicas on other hosts included — tells the others what it
 * spent through Postgres LISTEN/NOTIFY: the database every replica already shares, so limits and
 * lockouts hold across replicas with no further server. Each process keeps its budgets in memory
 * (nothing on the hot path); a message leaves at most every sync interval, so a budget is
 * overshot by at most what the other processes served in one interval plus the delivery delay.
 * The listening session reconnects by itself (a database restart or failover); while it is down,
 * each process still enforces what it knows.
 */
export function postgresPeers(pool: pg.Pool, logger: Logger): PostgresPeers {
  const self = randomUUID();
  const receivers: ((message: LimitsMessage) => void)[] = [];
  let session: pg.PoolClient | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const onNotification = (notification: pg.Notification) => {
    if (notification.channel !== LIMITS_CHANNEL || !notification.payload) return;
    try {
      const { from, message } = JSON.parse(notification.payload) as {
        from: string;
        message: unknown;
      };
      if (from === self || !isLimitsMessage(message)) return;
      for (const receive of receivers) receive(message);
    } catch (error) {
      logger.warn({ err: error }, 'unreadable limits message ignored');
    }
  };

  const listen = async () => {
    retry = undefined;
    if (closed) return;
    let client: pg.PoolClient | undefined;
    try {
      client = await pool.connect();
      const lost = (error?: Error) => {
        if (session !== client) return;
        session = undefined;
        client!.release(error ?? true);
        if (!closed) {
          logger.warn({ err: error }, 'limits channel lost; listening again shortly');
          retry = setTimeout(() => void listen(), 1000).unref();
        }
      };
      client.on('notification', onNotification);
      client.on('error', lost);
      client.on('end', () => lost());
      session = client;
      await client.query(`LISTEN ${LIMITS_CHANNEL}`);
    } catch (error) {
      if (client && session === client) session = undefined;
      client?.release(true);
      if (!closed) {
        logger.warn({ err: error }, 'limits channel unavailable; retrying');
        retry = setTimeout(() => void listen(), 1000).unref();
      }
    }
  };
  void listen();

  return {
    publish(message) {
      for (const payload of splitLimitsMessage(message, self)) {
        // Best effort: a lost message only lets the others overshoot by what it carried.
        pool
          .query('SELECT pg_notify($1, $2)', [LIMITS_CHANNEL, payload])
          .catch((error: unknown) => logger.debug({ err: error }, 'limits message not sent'));
      }
    },
    subscribe: (receive) => void receivers.push(receive),
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const client = session;
      session = undefined;
      if (client) {
        await client.query(`UNLISTEN ${LIMITS_CHANNEL}`).catch(() => undefined);
        client.release();
      }
    },
  };
}
