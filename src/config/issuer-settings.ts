import { integer, nonEmpty, optional } from '#settings/setting-types.js';

const lifetime = (fallback: number) =>
  integer(
    1,
    3600,
    fallback,
    'at most 3600 (an hour): a longer-lived assertion is a stored secret again',
  );

/** Trusted issuers' assertions at the jwt-bearer grant. */
export const issuerSettings = {
  TRUSTED_ISSUERS: optional(nonEmpty, 'no operator issuers').describe(
    "The operator's trusted issuers for the whole deployment (docs/operations.md, \"Trusting a platform's tokens\"): a JSON array of a space's issuer definitions (`iss`, `jwks_uri` or `jwks`, `audience`, `rules`, `max_lifetime_seconds`), each with an `id` and every rule naming its `space_id`, or `file:<path>`. Checked at start; listed to the spaces they serve, changed by none of their admins.",
  ),
  JWT_BEARER_MAX_LIFETIME_SECONDS: lifetime(300).describe(
    "How far past its `iat` a trusted issuer's assertion may expire, in seconds: a longer-lived one is refused at the jwt-bearer grant (`invalid_grant`, `exp`). Kubernetes projected tokens: set `expirationSeconds` at most this (their minimum is 600: give their issuer `max_lifetime_seconds` 600 rather than raising this). An issuer's own `max_lifetime_seconds` takes its place.",
  ),
  JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS: lifetime(600).describe(
    "The most a trusted issuer's own `max_lifetime_seconds` may say (a space admin sets it per issuer; a higher one is refused, and one set before a lowering is held to this). 600 lets a Kubernetes projected token (its shortest lifetime) be trusted without raising JWT_BEARER_MAX_LIFETIME_SECONDS for every issuer.",
  ),
  JWT_BEARER_CLOCK_SKEW_SECONDS: integer(0, 300, 30).describe(
    "Clock skew allowed when judging a trusted issuer's assertion's `exp`, `nbf` and `iat`, in seconds (the same 30 s private_key_jwt assertions are given).",
  ),
  TRUSTED_ISSUER_JWKS_CACHE_MAX: integer(1, undefined, 1000).describe(
    "How many trusted issuers' fetched JWKS each API process holds (each for 10 minutes, fetched again sooner for an unknown `kid`, at most every 30 s).",
  ),
  CLIENT_METADATA_CACHE_MAX_SECONDS: integer(0, 86_400, 300).describe(
    'How long a client ID metadata document (a client id that is an https URL) is held at most, in seconds: its Cache-Control `max-age` when shorter, nothing for `no-store`; without the header, this. 0: fetched at every use.',
  ),
  OUTBOUND_FETCH_TIMEOUT_MS: integer(100, 60_000, 4000).describe(
    "Wall clock over one outbound fetch (a trusted issuer's JWKS; a client ID metadata document and its `jwks_uri` together), connect, headers and body, in milliseconds: past it the connection is dropped and the fetch fails `timed out`. Keep it below REQUEST_DEADLINE_MS so a caller hears why.",
  ),
  OUTBOUND_FETCH_MAX_IN_FLIGHT: integer(1, 10_000, 100).describe(
    'Outbound fetches (JWKS, metadata documents) one API process has in flight at most (one per URL: callers of a URL being fetched wait for it); one more fails at once (`busy`).',
  ),
  OUTBOUND_FETCH_MAX_IN_FLIGHT_PER_SPACE: integer(1, 10_000, 10).describe(
    "Outbound fetches one space's issuers and metadata clients have in flight in one API process at most; one more fails at once (`busy`), so a slow peer costs its space and no other.",
  ),
  TRUSTED_ISSUER_MAX_PER_SPACE: integer(0, 1000, 20).describe(
    'Trusted issuers one space may have (removed ones not counted); `POST /v1/trusted-issuers` past it answers 409 `conflict`. Each may cost the API a JWKS fetch.',
  ),
  METADATA_DOMAIN_MAX_PER_SPACE: integer(0, 1000, 20).describe(
    "Client ID metadata document domains one space may allow (removed ones not counted); allowing one more answers 409 `conflict`. Each may cost the API fetches of its clients' documents.",
  ),
  CLIENT_METADATA_CACHE_MAX: integer(1, undefined, 1000).describe(
    'How many client ID metadata documents (and their keys) each API process holds, and how many first uses it remembers having recorded.',
  ),
};
