import type { Decision } from '../domain/decision.js';
import type { NewEvent } from '#event-log/types.js';
import type { Decider, Loaded } from './handle.js';

/** Nothing to read: a new stream. */
export const FRESH: Loaded<undefined> = { state: undefined, version: 'fresh' };
const FIRST: Loaded<undefined> = { state: undefined, version: 'no_stream' };

/**
 * A record-only command's decider, nothing to read: a fresh stream per event, group-committed;
 * `once`, a stream named by a key processes share, checked, and one already there is the record.
 */
export function recordingDecider<Command, Facts = undefined>(recording: {
  readonly stream: (command: Command) => { readonly spaceId: string; readonly streamId: string };
  readonly decide: (command: Command) => Decision<NewEvent, never, Facts>;
  readonly once?: boolean;
}): Decider<Command, undefined, never, Facts> {
  const { once } = recording;
  return {
    stream: recording.stream,
    load: () => (once ? FIRST : FRESH),
    decide: (command) => recording.decide(command),
    evolve: (state) => state,
    refusals: {},
    conflict: once
      ? { then: 'settled', message: 'recorded by another process' }
      : { then: 'refuse', message: 'event id already used; retry the request' },
  };
}
