import { ConfigError, type Config } from '../config/config.js';
import type { DatabaseHandle } from '../db/database.js';
import {
  operatorIssuerOf,
  operatorIssuerRefusals,
  operatorIssuersSchema,
  type OperatorIssuer,
} from '../domain/trusted-issuer/operator-issuers.js';
import { jwksUriRefusal } from '../commands/trusted-issuer/admin.js';
import { createIssuerKeys } from '../commands/trusted-issuer/issuer-keys.js';
import type { TrustedIssuerPorts } from '../commands/trusted-issuer/ports.js';
import { createTrustedIssuerLookup } from '../projections/trusted-issuer-lookup.js';
import { sinkTargetRules } from './sink-admin-context.js';
import { checkedList, jsonListSetting } from './list-setting.js';

/** The audiences naming this service: its issuer identifier and its token endpoint's URL. */
export const ourAudiences = (config: Config) => [
  config.TOKEN_ISSUER,
  new URL('/v1/credential/token', config.TOKEN_ISSUER).href,
];

/** TRUSTED_ISSUERS read and checked (`file:` resolved); errors name the setting, never a value. */
export async function operatorIssuers(config: Config): Promise<OperatorIssuer[]> {
  if (!config.TRUSTED_ISSUERS) return [];
  const raw = await jsonListSetting('TRUSTED_ISSUERS', config.TRUSTED_ISSUERS, 'issuers');
  const issuers = checkedList('TRUSTED_ISSUERS', operatorIssuersSchema, raw);
  const rules = sinkTargetRules(config);
  const refusals = operatorIssuerRefusals(issuers, {
    ours: ourAudiences(config),
    lifetimeCeiling: config.JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS,
    jwksRefusal: (url) => jwksUriRefusal(url, rules),
  });
  if (refusals.length > 0) throw new ConfigError(refusals);
  return issuers;
}

/**
 * The jwt-bearer grant's issuers: a space's own (its admins' read model, cached), else the
 * operator's serving that space.
 */
export async function trustedIssuerPorts(
  config: Config,
  database: DatabaseHandle,
  now: () => number,
  fetcher: Parameters<typeof createIssuerKeys>[0]['fetcher'],
): Promise<TrustedIssuerPorts> {
  const operator = await operatorIssuers(config);
  const lookup = createTrustedIssuerLookup(database.db, {
    ttlMs: config.CREDENTIAL_CACHE_TTL_MS,
    maxEntries: config.LIMITER_MAX_KEYS,
    now,
  });
  return {
    find: async (spaceId, iss) =>
      (await lookup.find(spaceId, iss)) ?? operatorIssuerOf(operator, spaceId, iss),
    forget: lookup.forget,
    operator,
    keys: createIssuerKeys({
      fetcher,
      timeoutMs: config.OUTBOUND_FETCH_TIMEOUT_MS,
      maxEntries: config.TRUSTED_ISSUER_JWKS_CACHE_MAX,
      now,
    }),
    maxLifetimeSeconds: config.JWT_BEARER_MAX_LIFETIME_SECONDS,
    lifetimeCeiling: config.JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS,
    clockSkewSeconds: config.JWT_BEARER_CLOCK_SKEW_SECONDS,
  };
}
