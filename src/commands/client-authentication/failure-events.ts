import type { IdGenerator } from '../../domain/ports.js';
import { decideFailureSummary } from '../../domain/client-authentication/decide.js';
import { streams, type DomainEvent } from '../../domain/events.js';
import {
  createEventBudget,
  summaryOn,
  type BudgetedRecorder,
  type BudgetOptions,
} from '../event-budget.js';

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

/** Per-minute client-authentication-failed budget per client, one summary for the rest: a bounded log. */
export function createFailureEvents(
  options: BudgetOptions & { readonly ids: IdGenerator },
): FailureEvents {
  const budget = createEventBudget({
    ...options,
    summarize: (clientId, window) =>
      summaryOn(
        decideFailureSummary(
          { clientId, eventId: options.ids.eventId(), requestId: options.ids.eventId() },
          window,
        ).events[0],
        window.spaceId,
        streams.failureSummary,
      ),
  });
  return {
    failed: (spaceId, failure, ip) =>
      budget.record(
        failure.data.client_id,
        { spaceId, stream: streams.authenticationFailure(failure.eventId), event: failure },
        ip,
        'failed',
      ),
    refused: (spaceId, clientId, ip) => budget.count(clientId, spaceId, ip, 'refused'),
    flushClosedWindows: budget.flushClosedWindows,
    close: budget.close,
    size: budget.size,
  };
}
