import { RateLimitedError, UnavailableError } from '../errors/errors.js';

/** How many live streams a process serves: in all, per space, and per user. */
export interface StreamCaps {
  readonly perProcess: number;
  readonly perSpace: number;
  readonly perSubject: number;
}

/** Slots for live streams, taken before anything is awaited so a burst cannot overshoot. */
export interface StreamSlots {
  /**
   * Takes a slot for `subject` in `spaceId`, or throws: 503 when the process is full, 429 when
   * the space or the user has all theirs (one tenant's auditor cannot take every slot). The
   * returned release is idempotent.
   */
  take(spaceId: string, subject: string): () => void;
  size(): number;
}

/** Counts streams by space and by user (`issuer|subject`), beside the process total. */
export function createStreamSlots(caps: StreamCaps): StreamSlots {
  let open = 0;
  const bySpace = new Map<string, number>();
  const bySubject = new Map<string, number>();
  const add = (counts: Map<string, number>, key: string, by: number) => {
    const next = (counts.get(key) ?? 0) + by;
    if (next === 0) counts.delete(key);
    else counts.set(key, next);
  };
  const tooMany = (message: string, quota: number) =>
    new RateLimitedError(message, {
      policy: 'audit-streams',
      quota,
      windowSeconds: 60,
      retryAfterSeconds: 5,
    });
  return {
    take(spaceId, subject) {
      if (open >= caps.perProcess) {
        throw new UnavailableError('too many audit streams open on this instance', {
          retryAfterSeconds: 5,
        });
      }
      if ((bySpace.get(spaceId) ?? 0) >= caps.perSpace) {
        throw tooMany(`this space has ${caps.perSpace} audit streams open`, caps.perSpace);
      }
      if ((bySubject.get(subject) ?? 0) >= caps.perSubject) {
        throw tooMany(`this user has ${caps.perSubject} audit streams open`, caps.perSubject);
      }
      open += 1;
      add(bySpace, spaceId, 1);
      add(bySubject, subject, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open -= 1;
        add(bySpace, spaceId, -1);
        add(bySubject, subject, -1);
      };
    },
    size: () => open,
  };
}
