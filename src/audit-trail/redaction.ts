import { redactionOf, type Redaction } from '#audit-log/redaction.js';
import { EVENT_CATALOG } from '../domain/events.js';

/** The event redacted as the service's catalog says (`redacted` in `src/domain/event-data/`). */
export const redactEvent: Redaction = redactionOf(EVENT_CATALOG);
