import { z } from 'zod';
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

// Settings whose values are secrets (keys) or carry them (connection strings with passwords).
const SECRET_SETTING = /KEY|SECRET|PASSWORD|PIN|DATABASE_URL/;

/**
 * The settings by group, in the order docs/configuration.md lists them. Each setting documents
 * itself (`.describe()`, and settingNotes for what its default cannot say); `npm run docs:config`
 * writes the document from this, and test/unit/config-doc.test.ts holds the two equal.
 */
export const SETTING_GROUPS: readonly {
  readonly title: string;
  readonly settings: Readonly<Record<string, z.ZodType>>;
}[] = [
  { title: 'Processes and HTTP', settings: processSettings },
  { title: 'Database', settings: databaseSettings },
  { title: 'Event log and projector', settings: eventLogSettings },
  { title: 'Tokens and clients', settings: tokenSettings },
  { title: 'Trusted issuers', settings: issuerSettings },
  { title: 'Signing keys', settings: signingSettings },
  { title: 'Dashboard login tokens', settings: loginSettings },
  { title: 'Limits', settings: limitSettings },
  { title: 'Audit trail', settings: auditTrailSettings },
  { title: 'Audit delivery', settings: deliverySettings },
  { title: 'Traces', settings: tracingSettings },
];

/** Every setting the service reads, with its default and its description. */
export const configSchema = z.object({
  ...processSettings,
  ...databaseSettings,
  ...eventLogSettings,
  ...tokenSettings,
  ...issuerSettings,
  ...signingSettings,
  ...loginSettings,
  ...limitSettings,
  ...auditTrailSettings,
  ...deliverySettings,
  ...tracingSettings,
});

/** The validated, typed configuration. Immutable once loaded. */
export type Config = Readonly<z.infer<typeof configSchema>>;

/** A configuration that failed validation; `problems` name each variable and what it expects. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    // One problem, one line (what an operator greps for); several, one line each.
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n  ${problems.join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

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
  // Empty strings mean "unset" so `FOO= npm start` falls back to the default.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = configSchema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const variable = issue.path.join('.') || '(environment)';
        // A secret's value is never echoed, not even a wrong one (it may be the right one mistyped).
        const shown = variable in present && !SECRET_SETTING.test(variable);
        return `${variable}: ${issue.message}${shown ? ` (got "${present[variable]}")` : ''}`;
      }),
    );
  }
  if (parsed.data.LOGIN_JWKS_URL && parsed.data.LOGIN_PUBLIC_KEY) {
    throw new ConfigError(['LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY: set one of them, not both']);
  }
  const production = parsed.data.NODE_ENV === 'production' && purpose === 'issuer';
  if (production && !parsed.data.LOGIN_JWKS_URL && !parsed.data.LOGIN_PUBLIC_KEY) {
    throw new ConfigError([
      'LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY: with NODE_ENV=production one of them (and LOGIN_ISSUER) is required; the development login key is never trusted in production',
    ]);
  }
  const urlProblems = production ? productionUrlProblems(parsed.data, present) : [];
  if (urlProblems.length > 0) throw new ConfigError(urlProblems);
  if (production && !parsed.data.SIGNING_KEY_ENCRYPTION_KEY) {
    throw new ConfigError([
      'SIGNING_KEY_ENCRYPTION_KEY: with NODE_ENV=production it is required (32 bytes in base64 or base64url, or file:<path> of a file holding them); token signing keys are stored sealed under it, never in the clear',
    ]);
  }
  if ((parsed.data.LOGIN_JWKS_URL || parsed.data.LOGIN_PUBLIC_KEY) && !parsed.data.LOGIN_ISSUER) {
    throw new ConfigError([
      'LOGIN_ISSUER: required when an external login-token key is configured',
    ]);
  }
  return Object.freeze(parsed.data);
}
