import { createHash } from 'node:crypto';
import type { RecordedEvent } from '../event-store/types.js';
import type { EventData, EventType } from '../domain/events.js';

/**
 * Fields of each event type that never leave the database as they are (exports, the trees'
 * leaves, the live feeds): secret hashes. Keyed on the registry: a new event type does not compile until it says.
 */
export const SENSITIVE_FIELDS: {
  readonly [Type in EventType]: readonly (keyof EventData<Type> & string)[];
} = {
  'credential-created': ['secret_hash'],
  'credential-secret-rotated': ['secret_hash'],
  'credential-keys-changed': [],
  'private-token-issued': [],
  'public-token-issued': [],
  'client-authentication-failed': [],
  'credential-revoked': [],
  'token-revoked': [],
  'signing-key-generated': [],
  'signing-key-retired': [],
  'signing-keys-resealed': [],
  'credential-rate-limit-changed': [],
  'credential-scopes-changed': [],
  'client-authentication-failures-summarized': [],
  'access-refused': [],
  'access-refusals-summarized': [],
  'audit-log-read': [],
  'credential-secret-replayed': [],
  'events-archived': [],
  // A webhook's secret is sealed in its row, never in the event: nothing to hide here.
  'sink-created': [],
  'sink-changed': [],
  'sink-paused': [],
  'sink-resumed': [],
  'sink-deleted': [],
};

const DIGEST_PREFIX = 'sha256:';

/**
 * The event with each sensitive field replaced by `sha256:<hex of its value>`: an export proves
 * the value was there and unchanged without revealing it. Idempotent.
 */
export function redactEvent(event: RecordedEvent): RecordedEvent {
  const fields: readonly string[] = SENSITIVE_FIELDS[event.type as EventType] ?? [];
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
