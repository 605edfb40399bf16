import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

// Keys whose values never reach a log, at whatever depth they appear: secrets, tokens and login
// tokens never reach a log, even when someone logs a whole request or body by mistake. The one
// redaction (pino's path-based one beside it cost 2% of the API's CPU per request, issue 23).
const SENSITIVE_KEYS = new Set([
  'authorization',
  'cookie',
  'client_secret',
  'access_token',
  'refresh_token',
  'token',
  'password',
  'secret',
  'secret_hash',
  'private_jwk',
]);

/** A copy of `value` with every sensitive key's value replaced, at any depth (bounded). */
export function redactDeep(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Error || depth > 8) {
    return value;
  }
  if (isFlatAndClean(value)) return value; // the access log line, every request: no copy
  if (Array.isArray(value)) return value.map((item) => redactDeep(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = SENSITIVE_KEYS.has(key.toLowerCase()) ? '[redacted]' : redactDeep(item, depth + 1);
  }
  return copy;
}

/** No nested objects and no sensitive key: nothing to redact. */
function isFlatAndClean(value: object): boolean {
  if (Array.isArray(value)) return false;
  for (const key in value) {
    const item = (value as Record<string, unknown>)[key];
    if ((item !== null && typeof item === 'object') || SENSITIVE_KEYS.has(key.toLowerCase())) {
      return false;
    }
  }
  return true;
}

/**
 * The one logger factory: JSON lines on stdout, with redaction. Lines are buffered (up to 4 KiB)
 * and written asynchronously so the access log costs no syscall per request; the exit hook
 * flushes what is left on every orderly exit.
 */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'>,
  name = 'token-authority',
  destination?: DestinationStream,
): Logger {
  let target = destination;
  if (!target) {
    const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 });
    process.once('exit', () => stdout.flushSync());
    target = stdout;
  }
  return pino(
    {
      name,
      level: config.LOG_LEVEL,
      formatters: { log: (object) => redactDeep(object) as Record<string, unknown> },
    },
    target,
  );
}

export type { Logger };
