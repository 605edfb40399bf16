import { createHash } from 'node:crypto';
import type { RecordedEvent } from './recorded-event.js';

const DIGEST_PREFIX = 'sha256:';

/** An event as it may leave the log: fields that must not be shown replaced by their digest. */
export type Redaction = (event: RecordedEvent) => RecordedEvent;

/**
 * What to redact, by event type: each type's `redacted` fields (secret hashes) never leave the
 * database as they are (exports, the trees' leaves, the live feeds). token-authority passes its
 * event catalog, whose entries carry more than this.
 */
export type RedactedFields = Readonly<Record<string, { readonly redacted: readonly string[] }>>;

/** Redaction as `catalog` declares it; types it does not name are shown whole. */
export function redactionOf(catalog: RedactedFields): Redaction {
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
