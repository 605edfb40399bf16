import type { Decision } from '../domain/decision.js';
import type { EventStore, InlineProjection } from '#event-log/event-store.js';
import type { NewEvent, RecordedEvent } from '#event-log/types.js';
import { decidedInSpan, inSpan, tracingOn, type Attributes } from '../observability/tracing.js';
import type { Placed } from '../domain/streams.js';
import { ConflictError } from '../errors/errors.js';
import type { InlineWrites } from '../projections/inline-writes.js';
export type { Placed };

/** A stream's state as read, and the version the append must find it at (none: not there). */
export interface Loaded<State> {
  readonly state: State;
  readonly version?: number;
}

/** What a refusal means to the caller: the error it answers, from the refusal's detail. */
export type Refusals<Refusal extends string, Command> = {
  readonly [R in Refusal]: (command: Command, detail?: string) => Error;
};

/** An aggregate's command as a value (after Emmett's `Decider`), run by {@link handle}. */
export interface Decider<
  Command,
  State,
  Refusal extends string = never,
  Facts = undefined,
  Made = undefined,
  Writes = InlineWrites,
> {
  /** The stream the command appends to (a new one, or the aggregate's). */
  stream(command: Command): Placed;
  /** The state as it stands now (never a cache: the append checks its version), at once if none. */
  load(command: Command): Loaded<State> | Promise<Loaded<State>>;
  decide(command: Command, state: State): Decision<NewEvent, Refusal, Facts>;
  evolve(state: State, event: RecordedEvent): State;
  readonly refusals: Refusals<Refusal, Command>;
  /** The decide and append spans' attributes, built only in a sampled request; none: no spans. */
  traced?(command: Command): Attributes;
  /** Work an accepted decision's append waits for (a token signed; its digest kept beside). */
  prepare?(command: Command, facts: Facts): Promise<{ made: Made } & Beside>;
  /** Read-model writes that commit with the events (evolve's state as the row, say). */
  inline?(writes: Writes, state: State, command: Command): Promise<void>;
  /** Caches to drop once the events committed, so this process sees the change at once. */
  forget?(command: Command, state: State): void;
  /**
   * On a version conflict: `retry` decides again (a revocation still holds), `refuse` answers a
   * ConflictError (a rotated secret the winner would end), `settled` takes the winner's change.
   */
  readonly conflict: { readonly then: 'retry' | 'refuse' | 'settled'; readonly message: string };
}

/** What a handled command did: the state after it, the decision's facts and the events logged. */
export interface Handled<State, Facts, Made = undefined> {
  readonly state: State;
  readonly facts: Facts;
  /** The events committed (the originals for a retried append), none when nothing changed. */
  readonly events: readonly RecordedEvent[];
  /** What {@link Decider.prepare} made; undefined without it or when nothing was appended. */
  readonly made: Made;
}

/** The one way a command changes state: load, decide, prepare, append, inline writes, forget. */
export async function handle<
  Command,
  State,
  Refusal extends string,
  Facts,
  Made = undefined,
  Writes = InlineWrites,
>(
  store: Pick<EventStore<Writes>, 'append'>,
  decider: Decider<Command, State, Refusal, Facts, Made, Writes>,
  command: Command,
): Promise<Handled<State, Facts, Made>> {
  const { traced } = decider;
  // Tracing off, not even the spans' attributes are built: the issuance path is as it was.
  const spans = traced !== undefined && tracingOn();
  for (let attempt = 0; ; attempt += 1) {
    const loaded = decider.load(command);
    // Any thenable is awaited: only a plain value skips the await.
    const { state, version } = 'then' in loaded ? await loaded : loaded;
    const decision = spans
      ? decidedInSpan(
          () => traced(command),
          () => decider.decide(command, state),
        )
      : decider.decide(command, state);
    const { made, digest } =
      decision.ok && decision.events.length > 0 && decider.prepare
        ? await decider.prepare(command, decision.facts)
        : NOTHING_MADE;
    type Answer = Handled<State, Facts, Made>;
    // What was made is answered only with its events: a settled conflict made nothing of its own.
    const answer = (after: State, events: readonly RecordedEvent[]): Answer => {
      if (!decision.ok) throw decider.refusals[decision.refusal](command, decision.detail);
      const kept = events.length > 0 ? made : undefined;
      return { state: after, facts: decision.facts, events, made: kept as Made };
    };
    const { events } = decision;
    if (events.length === 0) return answer(state, []);
    const fold = (recorded: readonly RecordedEvent[]) => recorded.reduce(decider.evolve, state);
    const inline = decider.inline;
    const stream = decider.stream(command);
    const input = { ...stream, expectedVersion: version, events, ...(digest && { digest }) };
    const project: InlineProjection<Writes> | undefined =
      inline && ((writes, recorded) => inline(writes, fold(recorded), command));
    const { eventId, type } = events[0]!;
    const appended = spans
      ? await inSpan(
          'append',
          { 'event.id': eventId, 'event.type': type, 'tenant.space_id': stream.spaceId },
          () => store.append(input, project),
        )
      : await store.append(input, project);
    if (appended.ok) {
      const after = fold(appended.events);
      decider.forget?.(command, after);
      return answer(after, appended.events);
    }
    const { then, message } = decider.conflict;
    // What prepare spent (a budget, a proof) and made (a signed token) is not spent or made again.
    if (then === 'settled') return answer(state, []);
    if (then === 'refuse' || attempt > 0 || decider.prepare) throw new ConflictError(message);
  }
}

/** What an append keeps beside its events, never in them (a token's signature digest). */
type Beside = Pick<Parameters<EventStore['append']>[0], 'digest'>;

const NOTHING_MADE: { made: undefined } & Beside = { made: undefined };

/** A decider whose state is rows read under lock in the append's transaction: no version conflicts. */
export interface LockedDecider<
  Command,
  State,
  Refusal extends string,
  Facts,
  Writes,
  Event extends NewEvent = NewEvent,
> {
  /** The state, read under its lock through the store's declared writes. */
  load(writes: Writes, command: Command): Promise<State>;
  decide(command: Command, state: State): Decision<Event, Refusal, Facts>;
  /** The stream an event starts (events naming one stream are appended together). */
  stream(command: Command, facts: Facts, event: Event): Placed;
  readonly refusals: Refusals<Refusal, Command>;
  /** What commits with the events: the rows as the decision leaves them. */
  inline(
    writes: Writes,
    command: Command,
    state: State,
    facts: Facts,
    recorded: readonly RecordedEvent[],
  ): Promise<void>;
}

/** {@link handle} for a {@link LockedDecider} in one transaction; `answer` reads inside it. */
export function handleLocked<
  Command,
  State,
  Refusal extends string,
  Facts,
  Writes,
  Event extends NewEvent,
  Answer,
>(
  store: Pick<EventStore<Writes>, 'transact'>,
  decider: LockedDecider<Command, State, Refusal, Facts, Writes, Event>,
  command: Command,
  answer: (
    writes: Writes,
    done: { readonly state: State; readonly facts: Facts; readonly changed: boolean },
  ) => Promise<Answer>,
): Promise<Answer> {
  return store.transact(async ({ writes, append }) => {
    const state = await decider.load(writes, command);
    const decision = decider.decide(command, state);
    if (!decision.ok) throw decider.refusals[decision.refusal](command, decision.detail);
    const { facts } = decision;
    const recorded: RecordedEvent[] = [];
    for (const [place, events] of byStream(decision.events, (e) =>
      decider.stream(command, facts, e),
    )) {
      recorded.push(...(await append({ ...place, events })));
    }
    const changed = recorded.length > 0;
    if (changed) await decider.inline(writes, command, state, facts, recorded);
    return answer(writes, { state, facts, changed });
  });
}

/** Events in order, those of one stream together. */
function byStream<Event>(
  events: readonly Event[],
  stream: (event: Event) => Placed,
): Array<[Placed, Event[]]> {
  const groups = new Map<string, [Placed, Event[]]>();
  for (const event of events) {
    const place = stream(event);
    const key = `${place.spaceId}/${place.stream.streamId}`;
    const group = groups.get(key) ?? [place, []];
    group[1].push(event);
    groups.set(key, group);
  }
  return [...groups.values()];
}
