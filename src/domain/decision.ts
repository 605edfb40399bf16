/** Every decision: accepted with events and `facts`, or refused with why (and events all the same). */
export type Decision<Event, Refusal extends string = never, Facts = undefined> =
  | { readonly ok: true; readonly events: readonly Event[]; readonly facts: Facts }
  // A decision that cannot refuse has no refused branch to narrow away.
  | ([Refusal] extends [never]
      ? never
      : {
          readonly ok: false;
          readonly refusal: Refusal;
          readonly events: readonly Event[];
          /** What the refusal is about, for its message (the scope refused, say). */
          readonly detail?: string;
        });

/** An accepted decision. */
export function accept<Event>(events: readonly Event[]): {
  readonly ok: true;
  readonly events: readonly Event[];
  readonly facts: undefined;
};
export function accept<Event, Facts>(
  events: readonly Event[],
  facts: Facts,
): { readonly ok: true; readonly events: readonly Event[]; readonly facts: Facts };
export function accept<Event, Facts>(events: readonly Event[], facts?: Facts) {
  return { ok: true as const, events, facts };
}

/** A refused decision, with the events recorded all the same (none by default). */
export function refuse<Refusal extends string, Event = never>(
  refusal: Refusal,
  events: readonly Event[] = [],
  detail?: string,
): {
  readonly ok: false;
  readonly refusal: Refusal;
  readonly events: readonly Event[];
  readonly detail?: string;
} {
  return detail === undefined
    ? { ok: false, refusal, events }
    : { ok: false, refusal, events, detail };
}
