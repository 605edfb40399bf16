/**
 * The deliverer's pause and resume, and its record of SETs delivered, under the sink row's lock (so never crossing an admin's):
 * decided by the one handler (src/commands/sink/deliverer-events.ts), given by the process.
 */
export interface DelivererEvents {
  /** Pauses a failing sink; false when it was paused already (or is gone). */
  pause(sinkId: string, attempts: number, lastError: string | null): Promise<boolean>;
  /** Resumes a paused sink that answered its probe; false when it was not paused. */
  resume(sinkId: string): Promise<boolean>;
  /** Records the SETs a pushed stream's receiver answered 2xx: `signals-delivered`. */
  delivered(sinkId: string, spaceId: string, sets: readonly DeliveredSet[]): Promise<void>;
}

/** A SET a receiver took: its `jti` and the event it was made of. */
export interface DeliveredSet {
  readonly jti: string;
  readonly event_id: string;
  /** A polled SET the receiver reported an error for (`setErrs`). */
  readonly error?: string;
}
