import {
  authorizationRefusalKey,
  decideAuthorizationRefusalSummary,
  decideAuthorizationRefused,
  type AuthorizationRequestRefusal,
} from '../../domain/authorization-refusal/decide.js';
import type { EventMetadata } from '../../domain/events.js';
import type { IdGenerator } from '../../domain/ports.js';
import { createEventBudget, type BudgetedRecorder, type BudgetOptions } from '../event-budget.js';

/** Refused authorization requests, bounded; see {@link createAuthorizationRefusals}. */
export interface AuthorizationRefusals extends BudgetedRecorder {
  /** Records a refusal within budget, else counts it; never fails (a database away is logged). */
  refused(
    spaceId: string,
    refusal: AuthorizationRequestRefusal,
    metadata: EventMetadata,
  ): Promise<void>;
  /** A request refused (429) before any check: counted in its window's summary. */
  limited(spaceId: string, clientId: string | null, ip: string): void;
}

/**
 * Per-minute budget of `authorization-request-refused` per space and error, one summary for the
 * rest: whoever sends bad requests to a space grows its log by a bounded amount a minute.
 */
export function createAuthorizationRefusals(
  options: BudgetOptions & { readonly ids: IdGenerator },
): AuthorizationRefusals {
  const budget = createEventBudget({
    ...options,
    summarize: (key, window) => {
      const { events, facts } = decideAuthorizationRefusalSummary(
        { key, eventId: options.ids.eventId(), requestId: options.ids.eventId() },
        window,
      );
      return facts && { ...facts, event: events[0]! };
    },
  });
  return {
    async refused(spaceId, refusal, metadata) {
      const { events, facts } = decideAuthorizationRefused({
        eventId: options.ids.eventId(),
        spaceId,
        refusal,
        metadata,
      });
      const tag = refusal.client_id ?? undefined;
      try {
        await budget.record(
          facts.key,
          { ...facts, event: events[0]! },
          metadata.client_ip,
          'refused',
          tag,
        );
      } catch (error) {
        options.logger.warn({ err: error }, 'authorization refusal not recorded');
      }
    },
    limited(spaceId, clientId, ip) {
      const key = authorizationRefusalKey(spaceId, 'rate_limited');
      budget.count(key, spaceId, ip, 'refused', clientId ?? undefined);
    },
    flushClosedWindows: budget.flushClosedWindows,
    close: budget.close,
    size: budget.size,
  };
}
