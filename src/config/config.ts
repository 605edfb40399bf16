import { readSettings } from '#settings/read-settings.js';
import { settingGroups } from '#settings/setting-groups.js';
import { ConfigError } from '#settings/config-error.js';
import type { z } from 'zod';
import { productionUrlProblems } from './production-urls.js';
import { processSettings } from './process-settings.js';
import { databaseSettings } from './database-settings.js';
import { eventLogSettings } from './event-log-settings.js';
import { tokenSettings } from './token-settings.js';
import { signingSettings } from './signing-settings.js';
import { loginSettings } from './login-settings.js';
import { limitSettings } from './limit-settings.js';
import { auditTrailSettings } from './audit-settings.js';
import { deliverySettings } from './delivery-settings.js';
import { tracingSettings } from './tracing-settings.js';
import { issuerSettings } from './issuer-settings.js';

export { ConfigError };

// Settings whose values are secrets (keys) or carry them (connection strings with passwords).
const SECRET_SETTING = /KEY|SECRET|PASSWORD|PIN|DATABASE_URL/;

const settings = settingGroups({
  'Processes and HTTP': processSettings,
  Database: databaseSettings,
  'Event log and projector': eventLogSettings,
  'Tokens and clients': tokenSettings,
  'Trusted issuers': issuerSettings,
  'Signing keys': signingSettings,
  'Dashboard login tokens': loginSettings,
  Limits: limitSettings,
  'Audit trail': auditTrailSettings,
  'Audit delivery': deliverySettings,
  Traces: tracingSettings,
});

/** The settings by group, in docs/configuration.md's order (`npm run docs:config` writes it). */
export const SETTING_GROUPS = settings.groups;

/** Every setting the service reads, with its default and its description. */
export const configSchema = settings.schema;

/** The validated, typed configuration. Immutable once loaded. */
export type Config = Readonly<z.infer<typeof configSchema>>;

/**
 * What the process is for: `issuer` (the API, `npm start`, the key commands) verifies login tokens
 * and seals signing keys, so production requires an external login issuer and
 * SIGNING_KEY_ENCRYPTION_KEY; `worker` (the projector, migrations, archives, chain checks) does
 * neither, and is not made to hold secrets it never uses.
 */
export type ConfigPurpose = 'issuer' | 'worker';

/** Validates `env` (default `process.env`); throws {@link ConfigError} naming every bad variable. */
export function loadConfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  purpose: ConfigPurpose = 'issuer',
): Config {
  const { values: config, given } = readSettings(configSchema, env, SECRET_SETTING);
  if (config.LOGIN_JWKS_URL && config.LOGIN_PUBLIC_KEY) {
    throw new ConfigError(['LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY: set one of them, not both']);
  }
  const production = config.NODE_ENV === 'production' && purpose === 'issuer';
  if (production && !config.LOGIN_JWKS_URL && !config.LOGIN_PUBLIC_KEY) {
    throw new ConfigError([
      'LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY: with NODE_ENV=production one of them (and LOGIN_ISSUER) is required; the development login key is never trusted in production',
    ]);
  }
  const urlProblems = production ? productionUrlProblems(config, given) : [];
  if (urlProblems.length > 0) throw new ConfigError(urlProblems);
  if (production && !config.SIGNING_KEY_ENCRYPTION_KEY) {
    throw new ConfigError([
      'SIGNING_KEY_ENCRYPTION_KEY: with NODE_ENV=production it is required (32 bytes in base64 or base64url, or file:<path> of a file holding them); token signing keys are stored sealed under it, never in the clear',
    ]);
  }
  if ((config.LOGIN_JWKS_URL || config.LOGIN_PUBLIC_KEY) && !config.LOGIN_ISSUER) {
    throw new ConfigError([
      'LOGIN_ISSUER: required when an external login-token key is configured',
    ]);
  }
  return Object.freeze(config);
}
