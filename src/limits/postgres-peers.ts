import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { z } from 'zod';
import { LIMITS_MESSAGE, type LimitsMessage, type LimitsPeers } from './limits.js';

/** The channel every API process of a deployment shares its spending on. */
export const LIMITS_CHANNEL = 'token_authority_limits';

// NOTIFY payloads must stay under 8,000 bytes; a message over this is sent in parts.
const MAX_PAYLOAD = 7000;

/**
 * Postgres lets any login NOTIFY any channel, so a message is taken only when it carries the MAC
 * of a key every API replica shares (derived from SECRET_HASH_KEY) and has the shape and bounds
 * of what a replica sends: another database login can neither lock a client out nor make its
 * budget endless.
 */
export interface ChannelTrust {
  /** SECRET_HASH_KEY: the one secret every API replica of a deployment already shares. */
  readonly sharedKey: Buffer;
  /** The most units one message may say were spent on one client or space (a minute's ceiling). */
  readonly maxUnits: number;
}

// Past these a message is not one an API process sends in a sync interval.
const MAX_ENTRIES = 10_000;
const MAX_KEY_LENGTH = 1024;

function messageSchema(maxUnits: number) {
  const key = z.string().min(1).max(MAX_KEY_LENGTH);
  const spending = z.array(z.tuple([key, z.number().int().min(1).max(maxUnits)])).max(MAX_ENTRIES);
  return z.object({
    from: z.string().max(64),
    message: z.object({
      kind: z.literal(LIMITS_MESSAGE),
      spent: spending,
      spentBySpace: spending,
      failedAuth: z.array(key).max(MAX_ENTRIES),
      failedLogin: z.array(key).max(MAX_ENTRIES),
    }),
  });
}

/** The channel's MAC key: its own, derived, so the secret-hash key itself signs nothing else. */
export function channelKey(sharedKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', sharedKey, '', 'token-authority limits channel', 32));
}

const macOf = (key: Buffer, json: string) =>
  createHmac('sha256', key).update(json).digest('base64url');

/** A message part as sent: `<mac>.<json>`. */
export function sealedPayload(key: Buffer, json: string): string {
  return `${macOf(key, json)}.${json}`;
}

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
export function postgresPeers(pool: pg.Pool, logger: Logger, trust: ChannelTrust): PostgresPeers {
  const self = randomUUID();
  const key = channelKey(trust.sharedKey);
  const schema = messageSchema(trust.maxUnits);
  let refusedSince = 0;
  const receivers: ((message: LimitsMessage) => void)[] = [];
  let session: pg.PoolClient | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  /** The message a payload carries, if a replica sent it and it is within bounds. */
  const opened = (payload: string): { from: string; message: LimitsMessage } | undefined => {
    const dot = payload.indexOf('.');
    if (dot <= 0) return undefined;
    const mac = Buffer.from(payload.slice(0, dot));
    const json = payload.slice(dot + 1);
    const expected = Buffer.from(macOf(key, json));
    if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined;
    try {
      const parsed = schema.safeParse(JSON.parse(json));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };

  const onNotification = (notification: pg.Notification) => {
    if (notification.channel !== LIMITS_CHANNEL || !notification.payload) return;
    const received = opened(notification.payload);
    if (!received) {
      // Said once a minute at most: whoever sends them should not also fill the log.
      if (Date.now() - refusedSince > 60_000) {
        refusedSince = Date.now();
        logger.warn(
          { channel: LIMITS_CHANNEL },
          'a limits message without a valid MAC or out of bounds was ignored (another database login is writing to the channel, or a replica has another SECRET_HASH_KEY)',
        );
      }
      return;
    }
    if (received.from === self) return;
    for (const receive of receivers) receive(received.message);
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
      for (const json of splitLimitsMessage(message, self)) {
        const payload = sealedPayload(key, json);
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
