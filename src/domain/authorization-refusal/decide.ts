import type { NewStream } from '#event-log/stream-ref.js';
import { windowBounds, type BudgetWindow } from '../budget-window.js';
import { accept, type Decision } from '../decision.js';
import {
  domainEvent,
  serviceMetadata,
  streams,
  type Asked,
  type DomainEvent,
  type EventData,
  type Placed,
} from '../events.js';

/** An authorization request refused, as the authorization endpoint answered it. */
export type AuthorizationRequestRefusal = EventData<'authorization-request-refused'>;
/** What a refusals' window counts: an error, or requests refused (429) before any check. */
export type AuthorizationRefusalReason = EventData<'authorization-refusals-summarized'>['reason'];

/** Where a refusal goes (its space, a stream of its own) and which budget it draws from. */
export interface AuthorizationRefusalPlacement extends Placed<NewStream> {
  readonly key: string;
}

/**
 * Record a refusal in the space the request was made to (one that takes authorization requests):
 * its budget is per space and reason, so no client can spend another space's.
 */
export function decideAuthorizationRefused(
  command: Asked & { readonly spaceId: string; readonly refusal: AuthorizationRequestRefusal },
): Decision<DomainEvent<'authorization-request-refused'>, never, AuthorizationRefusalPlacement> {
  const { spaceId, refusal } = command;
  const event = domainEvent(
    command.eventId,
    'authorization-request-refused',
    refusal,
    command.metadata,
  );
  return accept([event], {
    spaceId,
    stream: streams.authorizationRefusal(command.eventId),
    key: authorizationRefusalKey(spaceId, refusal.error),
  });
}

/** The budget a refusal draws from: its space and reason. */
export const authorizationRefusalKey = (spaceId: string, reason: AuthorizationRefusalReason) =>
  JSON.stringify([spaceId, reason]);

/** A closed window's summary, in its space: what was refused past the budget, and by whom. */
export function decideAuthorizationRefusalSummary(
  command: { readonly key: string; readonly eventId: string; readonly requestId: string },
  window: BudgetWindow,
): Decision<
  DomainEvent<'authorization-refusals-summarized'>,
  never,
  Placed<NewStream> | undefined
> {
  const refused = window.counts.refused ?? 0;
  if (refused === 0) return accept([], undefined);
  const [spaceId, reason] = JSON.parse(command.key) as [string, AuthorizationRefusalReason];
  const event = domainEvent(
    command.eventId,
    'authorization-refusals-summarized',
    {
      reason,
      ...windowBounds(window),
      refused,
      client_ids: [...window.tags],
      client_id_count: window.tagCount,
      source_ips: [...window.ips],
      source_ip_count: window.ipCount,
    },
    serviceMetadata(
      'service:authorization-refusal-budget',
      command.requestId,
      window.ips[0] ?? 'unknown',
    ),
  );
  return accept([event], { spaceId, stream: streams.authorizationRefusalSummary(command.eventId) });
}
