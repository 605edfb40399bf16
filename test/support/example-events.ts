import { randomUUID } from 'node:crypto';
import { EVENT_CATALOG, type EventData, type EventType } from '../../src/domain/events.js';
import type { EventGroup } from '../../src/domain/event-catalog.js';

/**
 * One example of every event type of `catalog`, each from its declaration (`example` in
 * `src/domain/event-data/`), all for one client at one time.
 */
export function examplesOf(catalog: EventGroup, clientId: string): Record<string, unknown> {
  const now = new Date();
  const given = { clientId, now, later: new Date(now.getTime() + 60_000), id: randomUUID };
  return Object.fromEntries(
    Object.entries(catalog).map(([type, { example }]) => [type, example(given)]),
  );
}

/**
 * One valid example of every event type of the catalog; the registry test checks that every
 * projection handles each.
 */
export function exampleEvents(clientId: string): { readonly [Type in EventType]: EventData<Type> } {
  return examplesOf(EVENT_CATALOG, clientId) as { readonly [Type in EventType]: EventData<Type> };
}
