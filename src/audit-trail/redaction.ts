import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../event-store/types.js';
import { EVENT_CATALOG } from '../domain/events.js';
import type { EventGroup } from '../domain/event-catalog.js';

const DIGEST_PREFIX = 'sha256:';

/**
 * Redaction as `catalog` declares it: each event type's `redacted` fields (secret hashes) never
 * leave the database as they are (exports, the trees' leaves, the live feeds). The service's is
 * {@link redactEvent}.
 */
export function redactionOf(catalog: EventGroup): (event: RecordedEvent) => RecordedEvent {
  const redacted = new Map(Object.entries(catalog).map(([type, { redacted }]) => [type, redacted]));
  return (event) => redactFields(event, redacted.get(event.type) ?? []);
}

/**
 * The event with each of `fields` replaced by `sha256:<hex of its value>`: an export proves the
 * value was there and unchanged without revealing it. Idempotent; the very same event when there
 * is nothing to replace.
 */
function redactFields(event: RecordedEvent, fields: readonly string[]): RecordedEvent {
  if (fields.length === 0) return event;
  const data = { ...(event.data as Record<string, unknown>) };
  for (const field of fields) {
    const value = data[field];
    if (typeof value === 'string' && !value.startsWith(DIGEST_PREFIX)) {
      data[field] = `${DIGEST_PREFIX}${createHash('sha256').update(value).digest('hex')}`;
    }
  }
  return { ...event, data };
}

/** The event redacted as the service's catalog says (`redacted` in `src/domain/event-data/`). */
export const redactEvent: (event: RecordedEvent) => RecordedEvent = redactionOf(EVENT_CATALOG);
