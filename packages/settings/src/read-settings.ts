import type { z } from 'zod';
import { ConfigError } from './config-error.js';

/** The settings `schema` read from an environment, and the environment as given. */
export interface SettingsRead<S extends z.ZodType> {
  readonly values: z.output<S>;
  /** The variables set, empty ones dropped: what was chosen rather than defaulted. */
  readonly given: Readonly<Record<string, string>>;
}

/**
 * Reads `env` by `schema`; a {@link ConfigError} names every bad setting and what it expects, with
 * the value it got unless the name matches `secret` (a secret's value is never echoed, not even a
 * wrong one: it may be the right one mistyped).
 */
export function readSettings<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
  secret: RegExp,
): SettingsRead<S> {
  // Empty means unset, so `FOO= npm start` falls back to the default.
  const given = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => !!entry[1]),
  );
  const parsed = schema.safeParse(given);
  if (parsed.success) return { values: parsed.data, given };
  throw new ConfigError(
    parsed.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const shown = name in given && !secret.test(name);
      return `${name}: ${issue.message}${shown ? ` (got "${given[name]}")` : ''}`;
    }),
  );
}
