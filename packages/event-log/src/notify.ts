import type pg from 'pg';

/** The channel the projector LISTENs on. */
export const EVENTS_CHANNEL = 'token_authority_events';

/** Tells followers of the log that something was appended. */
export interface AppendNotifier {
  appended(): void;
  close(): Promise<void>;
}

/**
 * Coalesced NOTIFY after commits. A NOTIFY inside every append transaction would take Postgres's
 * global notify-queue lock at each commit and serialise them; one NOTIFY per interval from outside
 * the write path costs nothing per request. Lost notifications only delay the projector until its
 * next poll.
 */
export function createAppendNotifier(pool: pg.Pool, intervalMs = 25): AppendNotifier {
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<unknown> = Promise.resolve();
  return {
    appended() {
      if (timer) return;
      timer = setTimeout(() => {
        timer = undefined;
        inFlight = pool
          .query('SELECT pg_notify($1, $2)', [EVENTS_CHANNEL, ''])
          .catch(() => undefined);
      }, intervalMs);
    },
    async close() {
      clearTimeout(timer);
      timer = undefined;
      await inFlight;
    },
  };
}
