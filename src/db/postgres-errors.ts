// SQLSTATEs and socket errors meaning "the database cannot serve this now", not "we have a bug".
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '57014',
  '55P03',
  '25006',
]);

const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Client has encountered a connection error|Connection ended|connection timeout|Query read timeout/i;

/** True when `error` says the database is unreachable, overloaded or too slow right now. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message);
}

/** True for a Postgres unique violation (23505), on the named constraint when one is given. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const pgError = error as { code?: string; constraint?: string } | null;
  return (
    pgError?.code === '23505' && (constraint === undefined || pgError.constraint === constraint)
  );
}
