import type { EventGroup } from '../domain/event-catalog.js';
import type { EventMetric } from '../domain/event-data/declaration.js';

/** What adds one to each counter an event type may name; `lifecycle` is labelled by the type. */
export type MetricCounters = { readonly [Metric in EventMetric]: (eventType: string) => void };

/**
 * What counts an appended event, for each type `catalog` gives a metric (its `metric`, by
 * default `lifecycle`); a type without one, or unknown, counts nowhere.
 */
export function appendCounters(
  catalog: EventGroup,
  counters: MetricCounters,
): ReadonlyMap<string, () => void> {
  return new Map(
    Object.entries(catalog).flatMap(([type, { metric }]) =>
      metric === null ? [] : [[type, () => counters[metric](type)] as const],
    ),
  );
}
