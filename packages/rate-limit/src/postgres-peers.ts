import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { z } from 'zod';
import { openedPayload, sealedPayload, splitMessage } from './notify-payload.js';
import type { Peers } from './peers.js';

/** What {@link postgresPeers} logs to; a pino logger is one. */
export interface PeersLogger {
  warn(details: object, message: string): void;
  debug(details: object, message: string): void;
}

/** Options of {@link postgresPeers}. */
export interface PostgresPeersOptions<Message> {
  /** The channel (an SQL identifier) every peer listens and notifies on. */
  readonly channel: string;
  /**
   * The MAC key every peer shares (`channelKey`): Postgres lets any login NOTIFY any
   * channel, so a message without its MAC is ignored.
   */
  readonly key: Buffer;
  /** The shape and bounds of what a peer sends: no other login can make a budget endless. */
  readonly schema: z.ZodType<Message>;
  /** What the messages are, in the logs ("limits"). */
  readonly name: string;
  /** The setting that holds the shared key, named when a message fails its MAC. */
  readonly keySetting: string;
}

/** {@link Peers} over Postgres, and a way to stop listening. */
export interface PostgresPeers<Message> extends Peers<Message> {
  close(): Promise<void>;
}

/**
 * Peers reached through Postgres LISTEN/NOTIFY: the database every replica already shares, so
 * budgets hold across replicas on other hosts with no further server. The listening session
 * reconnects by itself (a database restart or failover); while it is down, each process still
 * enforces what it knows.
 */
export function postgresPeers<Message extends object>(
  pool: pg.Pool,
  logger: PeersLogger,
  options: PostgresPeersOptions<Message>,
): PostgresPeers<Message> {
  const { channel, key, name } = options;
  const self = randomUUID();
  const schema = z.object({ from: z.string().max(64), message: options.schema });
  let refusedSince = 0;
  const receivers: ((message: Message) => void)[] = [];
  let session: pg.PoolClient | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  /** The message a payload carries, if a peer sent it and it is within bounds. */
  const opened = (payload: string) => {
    const json = openedPayload(key, payload);
    if (json === undefined) return undefined;
    try {
      const parsed = schema.safeParse(JSON.parse(json));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  };

  const onNotification = (notification: pg.Notification) => {
    if (notification.channel !== channel || !notification.payload) return;
    const received = opened(notification.payload);
    if (!received) {
      // Said once a minute at most: whoever sends them should not also fill the log.
      if (Date.now() - refusedSince > 60_000) {
        refusedSince = Date.now();
        logger.warn(
          { channel },
          `a ${name} message without a valid MAC or out of bounds was ignored (another database login is writing to the channel, or a replica has another ${options.keySetting})`,
        );
      }
      return;
    }
    if (received.from === self) return;
    for (const receive of receivers) receive(received.message as Message);
  };

  /**
   * Whoever takes a client out of `session` releases it, and only they: a connection cut during
   * LISTEN both emits `error` and rejects the query, and a second release throws (pg-pool), which
   * killed an API replica in the partition drill.
   */
  const drop = (client: pg.PoolClient, error: unknown, what: string) => {
    if (session !== client) return;
    session = undefined;
    client.release(error instanceof Error ? error : true);
    if (closed) return;
    logger.warn({ err: error }, `${name} channel ${what}; listening again shortly`);
    retry = setTimeout(() => void listen(), 1000).unref();
  };

  const listen = async () => {
    retry = undefined;
    if (closed) return;
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      logger.warn({ err: error }, `${name} channel unavailable; listening again shortly`);
      if (!closed) retry = setTimeout(() => void listen(), 1000).unref();
      return;
    }
    if (closed) return client.release();
    session = client;
    client.on('notification', onNotification);
    client.on('error', (error) => drop(client, error, 'lost'));
    client.on('end', () => drop(client, undefined, 'lost'));
    await client.query(`LISTEN ${channel}`).catch((error: unknown) => {
      drop(client, error, 'unavailable');
    });
  };
  void listen();

  return {
    publish(message) {
      for (const json of splitMessage(message, self)) {
        // Best effort: a lost message only lets the others overshoot by what it carried.
        pool
          .query('SELECT pg_notify($1, $2)', [channel, sealedPayload(key, json)])
          .catch((error: unknown) => logger.debug({ err: error }, `${name} message not sent`));
      }
    },
    subscribe: (receive) => void receivers.push(receive),
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const client = session;
      session = undefined;
      if (client) {
        await client.query(`UNLISTEN ${channel}`).catch(() => undefined);
        client.release();
      }
    },
  };
}
