import {
  decideAccessRefused,
  decideRefusalSummary,
  refusalBudgetKey,
  type AccessRefusal,
} from '../../domain/access-refusal/decide.js';
import { SYSTEM_SPACE, streams, type EventMetadata } from '../../domain/events.js';
import type { IdGenerator } from '../../domain/ports.js';
import {
  createEventBudget,
  summaryOn,
  type BudgetedRecorder,
  type BudgetOptions,
} from '../event-budget.js';

/** Events for refused login-token requests, bounded; see {@link createAccessRefusals}. */
export interface AccessRefusals extends BudgetedRecorder {
  /** Records a refusal within budget, else counts it; never fails (a database away is logged). */
  refused(refusal: AccessRefusal, metadata: EventMetadata): Promise<void>;
  /** A bad login token refused unchecked (its source IP is over budget, 429): counted. */
  lockedOut(ip: string, requestedSpace: string | null): void;
}

/** Per-minute access-refused budget per reason and subject, one summary for the rest: a bounded trail. */
export function createAccessRefusals(
  options: BudgetOptions & { readonly ids: IdGenerator },
): AccessRefusals {
  const budget = createEventBudget({
    ...options,
    summarize: (key, window) => {
      const { events, facts } = decideRefusalSummary(
        { key, eventId: options.ids.eventId(), requestId: options.ids.eventId() },
        window,
      );
      return facts && summaryOn(events[0], facts.spaceId, streams.refusalSummary);
    },
  });
  return {
    async refused(refusal, metadata) {
      const { events, facts: placed } = decideAccessRefused({
        eventId: options.ids.eventId(),
        refusal,
        metadata,
      });
      try {
        await budget.record(
          placed.key,
          { ...placed, event: events[0]! },
          metadata.client_ip,
          'refused',
          refusal.requested_space ?? undefined,
        );
      } catch (error) {
        options.logger.warn({ err: error }, 'access refusal not recorded');
      }
    },
    lockedOut(ip, requestedSpace) {
      const key = refusalBudgetKey('invalid_login_token', null);
      budget.count(key, SYSTEM_SPACE, ip, 'locked_out', requestedSpace ?? undefined);
    },
    flushClosedWindows: budget.flushClosedWindows,
    close: budget.close,
    size: budget.size,
  };
}
