import type { IdGenerator } from '../../domain/ports.js';
import { decideFailureSummary } from '../../domain/client-authentication/decide.js';
import { streams, type DomainEvent } from '../../domain/events.js';
import { createEventBudget, type BudgetedRecorder, type BudgetOptions } from '../event-budget.js';

/** Failed-authentication events with a per-client budget; see {@link createFailureEvents}. */
export interface FailureEvents extends BudgetedRecorder {
  /** A failed authentication of a known client: appended while under budget, else counted. */
  failed(
    spaceId: string,
    failure: DomainEvent<'client-authentication-failed'>,
    ip: string,
  ): Promise<void>;
  /** An attempt refused unchecked (its client and IP were locked out): counted. */
  refused(spaceId: string, clientId: string, ip: string): void;
}

/**
 * At most `perMinute` client-authentication-failed events per client per minute; the rest are
 * counted and written as one client-authentication-failures-summarized event per client per
 * window (see createEventBudget): whatever an attacker sends, the log grows by at most
 * perMinute + 1 events per client per minute per API process.
 */
export function createFailureEvents(
  options: BudgetOptions & { readonly ids: IdGenerator },
): FailureEvents {
  const budget = createEventBudget({
    ...options,
    summarize: (clientId, window) => {
      const [event] = decideFailureSummary(
        { clientId, eventId: options.ids.eventId(), requestId: options.ids.eventId() },
        window,
      ).events;
      return (
        event && {
          spaceId: window.spaceId,
          streamId: streams.failureSummary(event.eventId),
          event,
        }
      );
    },
  });
  return {
    failed: (spaceId, failure, ip) =>
      budget.record(
        failure.data.client_id,
        { spaceId, streamId: streams.authenticationFailure(failure.eventId), event: failure },
        ip,
        'failed',
      ),
    refused: (spaceId, clientId, ip) => budget.count(clientId, spaceId, ip, 'refused'),
    flushClosedWindows: budget.flushClosedWindows,
    close: budget.close,
    size: budget.size,
  };
}
