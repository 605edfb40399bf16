import { pino, type DestinationStream, type Logger } from 'pino';
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
      redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    },
    target,
  );
}

export type { Logger };
