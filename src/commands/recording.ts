import type { Decision } from '../domain/decision.js';
import type { NewEvent } from '#event-log/types.js';
import type { Decider } from './handle.js';

/**
 * The decider of a command that only records what happened (an audit read, a secret shown
 * again): its event starts a stream of its own, named by the event's fresh id, so there is
 * nothing to read, fold or write with it, and it is group-committed with its neighbours.
 */
export function recordingDecider<Command, Facts = undefined>(recording: {
  readonly stream: (command: Command) => { readonly spaceId: string; readonly streamId: string };
  readonly decide: (command: Command) => Decision<NewEvent, never, Facts>;
}): Decider<Command, undefined, never, Facts> {
  return {
    stream: recording.stream,
    load: async () => ({ state: undefined, version: 'fresh' }),
    decide: (command) => recording.decide(command),
    evolve: (state) => state,
    refusals: {},
    conflict: { then: 'refuse', message: 'event id already used; retry the request' },
  };
}
