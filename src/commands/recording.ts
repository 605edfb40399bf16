import type { Decision } from '../domain/decision.js';
import type { NewEvent } from '#event-log/types.js';
import type { Decider, Loaded, Placed } from './handle.js';

/** Nothing to read: the stream must not exist yet. */
export const NOTHING: Loaded<undefined> = { state: undefined };

/**
 * A record-only command's decider, nothing to read: a new stream per event, group-committed;
 * `once`, a keyed stream processes share, checked, and one already there is the record.
 */
export function recordingDecider<Command, Facts = undefined>(recording: {
  readonly stream: (command: Command) => Placed;
  readonly decide: (command: Command) => Decision<NewEvent, never, Facts>;
  readonly once?: boolean;
}): Decider<Command, undefined, never, Facts> {
  const { once } = recording;
  return {
    stream: recording.stream,
    load: () => NOTHING,
    decide: (command) => recording.decide(command),
    evolve: (state) => state,
    refusals: {},
    conflict: once
      ? { then: 'settled', message: 'recorded by another process' }
      : { then: 'refuse', message: 'event id already used; retry the request' },
  };
}
