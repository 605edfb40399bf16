import { EVENT_CATALOG } from '../domain/events.js';
import type { EventGroup } from '../domain/event-catalog.js';

/** An audit entry's details: the fields of its event's data its type names. */
export type AuditDetails = (eventType: string, data: unknown) => Record<string, unknown>;

/** Audit details as `catalog` declares them (the `audit_log` view reads them from the data). */
export function auditDetailsOf(catalog: EventGroup): AuditDetails {
  const shapes = new Map(Object.entries(catalog).map(([type, { audit }]) => [type, audit]));
  return (eventType, data) => {
    const source = (data ?? {}) as Record<string, unknown>;
    const fields = shapes.get(eventType) ?? [];
    return Object.fromEntries(fields.map((field) => [field, source[field] ?? null]));
  };
}

/** An entry's details as the service's catalog says (`audit` in `src/domain/event-data/`). */
export const auditDetails: AuditDetails = auditDetailsOf(EVENT_CATALOG);
