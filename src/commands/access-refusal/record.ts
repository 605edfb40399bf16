import {
  decideAccessRefused,
  decideRefusalSummary,
  refusalBudgetKey,
  type AccessRefusal,
} from '../../domain/access-refusal/decide.js';
import { SYSTEM_SPACE, streams, type EventMetadata } from '../../domain/events.js';
import type { IdGenerator } from '../../domain/ports.js';
import { createEventBudget, type BudgetedRecorder, type BudgetOptions } from '../event-budget.js';

/** Events for refused login-token requests, bounded; see {@link createAccessRefusals}. */
export interface AccessRefusals extends BudgetedRecorder {
  /**
   * Records a refusal while its budget lasts, else counts it. Never fails: the refusal is
   * answered whatever happens here, and a database away is logged (the access log has it too).
   */
  refused(refusal: AccessRefusal, metadata: EventMetadata): Promise<void>;
  /** A bad login token refused unchecked (its source IP is over budget, 429): counted. */
  lockedOut(ip: string, requestedSpace: string | null): void;
}

/**
 * At most `perMinute` access-refused events per reason and subject per minute per API process
 * (one budget for every token that did not verify), and one access-refusals-summarized event per
 * budget and minute for the rest: 401s and 403s leave a trail an attacker cannot grow without
 * bound.
 */
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
      const [event] = events;
      return (
        event &&
        facts && {
          spaceId: facts.spaceId,
          streamId: streams.refusalSummary(event.eventId),
          event,
        }
      );
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
