import type { Decision } from '../domain/decision.js';
import type { NewEvent } from '#event-log/types.js';
import type { NewStream } from '#event-log/stream-ref.js';
import type { Decider, Placed } from './handle.js';

/** A record-only command's decider: a new stream per event, nothing to read, group-committed. */
export function recordingDecider<Command, Facts = undefined>(recording: {
  readonly stream: (command: Command) => Placed<NewStream>;
  readonly decide: (command: Command) => Decision<NewEvent, never, Facts>;
}): Decider<Command, undefined, never, Facts> {
  return {
    stream: recording.stream,
    load: async () => ({ state: undefined }),
    decide: (command) => recording.decide(command),
    evolve: (state) => state,
    refusals: {},
    conflict: { then: 'refuse', message: 'event id already used; retry the request' },
  };
}
