import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Paths pino blanks in every log line. Secrets, tokens and login tokens never reach a log, even
 * when someone logs a whole request or body by mistake.
 */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  '*.client_secret',
  'client_secret',
  '*.access_token',
  'access_token',
  '*.token',
  'token',
  '*.password',
  'password',
  '*.secret',
  'secret',
  '*.secret_hash',
];

/** The one logger factory: JSON lines on stdout, with redaction. */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, name = 'token-authority'): Logger {
  return pino({
    name,
    level: config.LOG_LEVEL,
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
  });
}

export type { Logger };
