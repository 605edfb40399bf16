import type pg from 'pg';
import type { Logger } from 'pino';
import { z } from 'zod';
import { channelKey } from '#rate-limit/notify-payload.js';
import { postgresPeers as peersOver, type PostgresPeers } from '#rate-limit/postgres-peers.js';
import { LIMITS_MESSAGE, type LimitsMessage } from './limits.js';

/** The channel every API process of a deployment shares its spending on. */
export const LIMITS_CHANNEL = 'token_authority_limits';

/**
 * What makes a message on the channel one a replica sent: the MAC of a key every API replica
 * shares, and the bounds of what a replica sends; another database login can neither lock a
 * client out nor make its budget endless.
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
    kind: z.literal(LIMITS_MESSAGE),
    spent: spending,
    spentBySpace: spending,
    failedAuth: z.array(key).max(MAX_ENTRIES),
    failedLogin: z.array(key).max(MAX_ENTRIES),
    authorizing: z.array(key).max(MAX_ENTRIES).optional(),
  });
}

/** The channel's MAC key: its own, derived, so the secret-hash key itself signs nothing else. */
export function limitsChannelKey(sharedKey: Buffer): Buffer {
  return channelKey(sharedKey, 'token-authority limits channel');
}

/**
 * Every API process of a deployment, replicas on other hosts included, tells the others what it
 * spent through Postgres; a message leaves at most every sync interval, so a budget is overshot
 * by at most what the others served in one interval plus the delivery delay.
 */
export function postgresPeers(
  pool: pg.Pool,
  logger: Logger,
  trust: ChannelTrust,
): PostgresPeers<LimitsMessage> {
  return peersOver(pool, logger, {
    channel: LIMITS_CHANNEL,
    key: limitsChannelKey(trust.sharedKey),
    schema: messageSchema(trust.maxUnits),
    name: 'limits',
    keySetting: 'SECRET_HASH_KEY',
  });
}
