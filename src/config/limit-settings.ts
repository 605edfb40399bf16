import { integer, oneOf } from '#settings/setting-types.js';

const perMinute = (fallback: number) => integer(1, 1_000_000_000, fallback);

/** What one client, space or source may spend, and how processes share it. */
export const limitSettings = {
  // A large storefront: ~10 million sessions a day peak near 300 new sessions (public tokens) a
  // second, 18,000 a minute; its servers add one private token each per token lifetime.
  CLIENT_RATE_LIMIT_PER_MINUTE: perMinute(30_000).describe(
    'Requests per client per minute over the token, issue, introspection and revocation endpoints together, across every API process; a credential may set its own, up to the space\'s ceiling (docs/operations.md, "Limits").',
  ),
  // Four such clients in one space.
  SPACE_RATE_LIMIT_PER_MINUTE: perMinute(120_000).describe(
    "The same for all clients of one space together: what one tenant can take, whatever its clients; no client's own limit may exceed it.",
  ),
  LIMITS_SYNC: oneOf(['postgres', 'host'], 'postgres').describe(
    'How API processes share budgets and lockouts: `postgres` (LISTEN/NOTIFY on the database every replica shares: limits hold across replicas) or `host` (only the workers of one `npm start`).',
  ),
  FAILED_AUTH_LIMIT_PER_MINUTE: integer(1, 1_000_000, 10).describe(
    'Failed client authentications per client and source IP per minute before further attempts get 429 unchecked; also bad login tokens per source IP.',
  ),
  FAILED_AUTH_EVENTS_PER_MINUTE: integer(0, 1_000_000, 10).describe(
    'Failure events recorded per client per minute, and refused login-token requests per reason and user; the rest go into one summary event per client (or user) and minute.',
  ),
  LIMITER_MAX_KEYS: integer(100, 10_000_000, 100_000).describe(
    'Entries each limiter, the credential cache and the unknown-client cache hold at most.',
  ),
};
