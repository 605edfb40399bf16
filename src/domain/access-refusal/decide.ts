import type { NewStream } from '#event-log/stream-ref.js';
import { windowBounds, type BudgetWindow } from '../budget-window.js';
import { accept, type Decision } from '../decision.js';
import {
  SYSTEM_SPACE,
  domainEvent,
  serviceMetadata,
  streams,
  type DomainEvent,
  type EventData,
  type Asked,
  type Placed,
} from '../events.js';

/** A login-token request refused (401/403), as the HTTP edge saw it. */
export type AccessRefusal = EventData<'access-refused'>;

/** Where a refusal event goes and which budget it draws from. */
export interface RefusalPlacement extends Placed<NewStream> {
  /** Budget key: per reason and subject (a bad token has none: one budget for all of them). */
  readonly key: string;
}

/** Record a refusal: an unverified token's in the service's space, a user's in the space asked. */
export function decideAccessRefused(
  command: Asked & { readonly refusal: AccessRefusal },
): Decision<DomainEvent<'access-refused'>, never, RefusalPlacement> {
  const { refusal } = command;
  const verified = refusal.reason !== 'invalid_login_token' && refusal.subject !== null;
  const spaceId = verified && refusal.requested_space ? refusal.requested_space : SYSTEM_SPACE;
  return accept([domainEvent(command.eventId, 'access-refused', refusal, command.metadata)], {
    spaceId,
    stream: streams.accessRefusal(command.eventId),
    key: refusalBudgetKey(refusal.reason, verified ? refusal.subject : null),
  });
}

/** The budget a refusal draws from: its reason and, for a verified token, its subject. */
export function refusalBudgetKey(reason: AccessRefusal['reason'], subject: string | null): string {
  return JSON.stringify([reason, subject]);
}

/** A closed window's summary: a user's refusals in the service's space, an auditor's in the first. */
export function decideRefusalSummary(
  command: { readonly key: string; readonly eventId: string; readonly requestId: string },
  window: BudgetWindow,
): Decision<
  DomainEvent<'access-refusals-summarized'>,
  never,
  { readonly spaceId: string } | undefined
> {
  const refused = window.counts.refused ?? 0;
  const lockedOut = window.counts.locked_out ?? 0;
  if (refused + lockedOut === 0) return accept([], undefined);
  const [reason, subject] = JSON.parse(command.key) as [AccessRefusal['reason'], string | null];
  const event = domainEvent(
    command.eventId,
    'access-refusals-summarized',
    {
      reason,
      subject,
      ...windowBounds(window),
      refused,
      refused_while_locked_out: lockedOut,
      requested_spaces: [...window.tags],
      requested_space_count: window.tagCount,
      source_ips: [...window.ips],
      source_ip_count: window.ipCount,
    },
    serviceMetadata('service:access-refusal-budget', command.requestId, window.ips[0] ?? 'unknown'),
  );
  return accept([event], { spaceId: reason === 'role_forbidden' ? window.spaceId : SYSTEM_SPACE });
}
