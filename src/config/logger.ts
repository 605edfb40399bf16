import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

// Keys whose values never reach a log, at any depth, even when a whole request or body is logged
// by mistake. The only redaction: pino's path-based one beside it cost 2% of the API's CPU.
const SENSITIVE_KEYS = new Set([
  'authorization',
  'authorization_header',
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

// pino's number for warn: lines at it and above are written at once.
const WARN = 40;
// The longest a line waits in the buffer on a quiet service.
const FLUSH_EVERY_MS = 1000;

/**
 * The one logger factory: JSON lines on stdout, with redaction. Lines are buffered (up to 4 KiB)
 * and written asynchronously so the access log costs no syscall per request, but never for long:
 * a warning or worse is written at once, anything else within a second; the exit hook flushes
 * what is left on every orderly exit.
 */
export function createLogger(
  config: Pick<Config, 'LOG_LEVEL'>,
  name = 'token-authority',
  destination?: DestinationStream,
): Logger {
  const options = {
    name,
    level: config.LOG_LEVEL,
    formatters: {
      log: (object: Record<string, unknown>) => redactDeep(object) as Record<string, unknown>,
    },
  };
  if (destination) return pino(options, destination);
  const stdout = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  process.once('exit', () => stdout.flushSync());
  let pending = false;
  const flush = () => {
    if (!pending) return;
    pending = false;
    try {
      stdout.flush();
    } catch {
      // Closed: the process is exiting, and the exit hook wrote what was left.
    }
  };
  setInterval(flush, FLUSH_EVERY_MS).unref();
  return pino(
    {
      ...options,
      hooks: {
        logMethod(args, method, level) {
          method.apply(this, args);
          pending = true;
          if (level >= WARN) flush();
        },
      },
    },
    stdout,
  );
}

export type { Logger };
