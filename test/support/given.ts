import type { DomainEvent, EventType, Recorded } from '../../src/domain/events.js';

/**
 * Given/when/then for the pure deciders: `given` folds past events through `evolve` into the
 * state a decision is asked in, as the handler's stored snapshot would hold it.
 */
export function given<State, Next extends State, Type extends EventType>(
  evolve: (state: State, event: Recorded<Type>) => Next,
  initial: State,
  events: readonly DomainEvent[],
  options: { readonly spaceId?: string; readonly at?: number } = {},
): Next {
  if (events.length === 0) throw new Error('given: no events');
  return events.reduce<State>(
    (state, event, index) =>
      evolve(state, {
        type: event.type,
        data: event.data,
        spaceId: options.spaceId ?? 'space-a',
        streamPosition: index + 1,
        recordedAt: new Date((options.at ?? Date.parse('2026-11-22T00:00:00Z')) + index * 1000),
      } as Recorded<Type>),
    initial,
  ) as Next;
}

/** Metadata as a request would carry it. */
export const metadata = {
  actor: 'user:alice',
  request_id: 'req-1',
  client_ip: '192.0.2.1',
  user_agent: 'test',
} as const;

/** Distinct, readable ids for events and tokens. */
export function sequentialIds(prefix = '00000000-0000-7000-8000-') {
  let n = 0;
  return () => `${prefix}${String(++n).padStart(12, '0')}`;
}
