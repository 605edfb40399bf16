import { z } from 'zod';
import { noted } from '#settings/setting-notes.js';
import { commaList, flag, integer, nonEmpty, optional } from '#settings/setting-types.js';

// At most a day, so a revocation list only ever holds a day of revocations.
const tokenSeconds = (fallback: number) => integer(1, 86_400, fallback, 'at most 86400 (one day)');

const key32OrMore = z
  .string()
  .regex(
    /^[A-Za-z0-9+/_-]{43,}={0,2}$/,
    'expected at least 32 bytes in base64 or base64url (43+ characters)',
  );

/** What tokens say and how long they live; clients' secrets and revocations. */
export const tokenSettings = {
  TOKEN_ISSUER: noted(z.url().default('http://localhost:8080'), 'production: required').describe(
    '`iss` of every access token: the public URL clients reach the service at. With `NODE_ENV=production` it must be set, and https (unless `ALLOW_HTTP_HOSTS` names its host).',
  ),
  ALLOW_HTTP_HOSTS: optional(commaList, 'https only').describe(
    "Comma-separated host names production may reach over plain http for `TOKEN_ISSUER` and `LOGIN_JWKS_URL` (a private network's names, never `*`); the API logs each such URL at start.",
  ),
  TOKEN_AUDIENCES: commaList
    .default(['storefront.api.local'])
    .describe('Comma-separated Storefront API audiences a client may ask for.'),
  PRIVATE_TOKEN_TTL_SECONDS: tokenSeconds(3600).describe(
    'Lifetime of private tokens, in seconds (at most a day).',
  ),
  PUBLIC_TOKEN_TTL_SECONDS: tokenSeconds(900).describe(
    "Lifetime of public tokens, in seconds (at most a day, and never past their private token's expiry).",
  ),
  // Off is for verifiers that read no lists, and for the bench's price of the claim (issue 65).
  TOKEN_STATUS_LIST: flag(true).describe(
    "Whether each token carries a `status` claim naming its entry in its space's status list (draft-ietf-oauth-status-list). `false`: tokens are about 100 bytes smaller and revocation reaches verifiers by introspection, the revocation list and Shared Signals only; lists already served keep being served.",
  ),
  SCOPE_CATALOG: optional(nonEmpty, 'no scopes: tokens carry none').describe(
    'Each audience\'s scopes, as JSON or `file:<path>`: `{"<audience>": {"<scope>": {"description": "…", "public": true, "default": true, "delegated": false}}}`; `public`: a public token may carry it; `default`: granted when a request names no scope, and allowed to a credential created without `scopes`; `delegated`: granted only to a delegated token (an agent acting for a customer) (RFC 8693 exchange of a `may_act` token), refused at `/v1/issue` and a plain exchange without `may_act` (a delegated token is a public token: mark it `public` too). Every audience must be one of `TOKEN_AUDIENCES`; `deploy/scope-catalog.json` is the development audience\'s (docs/api/server-integrators.md, "Scopes").',
  ),
  DELEGATION_MAX_DEPTH: integer(1, 8, 3).describe(
    "How many agents a delegated token's `act` chain may name after the storefront (RFC 8693 §4.1): an agent delegates again only while the chain stays within it (docs/api/agent-builders.md, Delegation).",
  ),
  // At most 100: an exchange claims its slot by trying them in turn, one insert each.
  DELEGATION_BUDGET: integer(1, 100, 20).describe(
    'How many delegated tokens (at most 100) one agent may get for one customer per `DELEGATION_BUDGET_WINDOW_SECONDS`, across every replica; past it the exchange is 429 `rate_limited` until the window ends.',
  ),
  DELEGATION_BUDGET_WINDOW_SECONDS: integer(60, 86_400, 3600).describe(
    'The window of `DELEGATION_BUDGET`, in seconds: fixed windows aligned to the epoch.',
  ),
  SECRET_HASH_KEY: optional(key32OrMore, 'generated into `DATA_DIR/secret-hash.key`').describe(
    'Key (32+ bytes, base64 or base64url) for hashing client secrets; set the same value on every API replica.',
  ),
  CREDENTIAL_CACHE_TTL_MS: integer(0, 60_000, 1000).describe(
    'How long, in milliseconds, an API process may reuse a credential it read: bounds how late a change reaches a replica.',
  ),
  UNKNOWN_CLIENT_CACHE_TTL_MS: integer(0, 600_000, 10_000).describe(
    'How long, in milliseconds, an unknown client id is remembered as unknown (one query per distinct id per this time).',
  ),
  REVOCATION_REFRESH_MS: integer(50, 60_000, 250).describe(
    'How often, in milliseconds, each API process reads the revocations other replicas made: a revoked token is refused everywhere within about this (plus a query).',
  ),
  REVOCATION_LOOKUP_MAX_ENTRIES: integer(1, 100_000_000, 1_000_000).describe(
    'Unexpired revoked token ids each API process holds in memory (about 100 bytes each); past it, an id not held is looked up in the database, so the answer stays exact and memory bounded.',
  ),
  // Long enough for any client's retries, short enough that no sealed secret lingers.
  IDEMPOTENCY_KEY_TTL_SECONDS: integer(60, 86_400, 3600).describe(
    'How long, in seconds, a secret rotation sent with an `Idempotency-Key` keeps its response (sealed under the key-encryption key), so a retry gets the same new secret; then the projector drops it.',
  ),
};
