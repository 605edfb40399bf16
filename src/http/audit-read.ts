import { recordAuditRead } from '../commands/audit-read/record.js';
import type { CommandContext } from '../commands/context.js';
import { requestMetadata } from './request-context.js';
import type { RequestContext } from './state.js';
import type { Authenticated } from './route.js';
import type { ProofReadBudget } from '../limits/proof-reads.js';

/** What every audit read route declares: a login token for the space; the read is recorded. */
export const AUDIT_READ_ROUTE = {
  tag: 'Audit',
  description: 'The read itself is recorded as an audit-log-read event.',
} as const;

/** How a read is recorded when asked, before its answer is known (a proof, a feed, an export). */
export const ASKED = { rows_returned: 0, complete: false } as const;

/** What an audit read records: who asked for which space, what, and how many rows came back. */
export type RecordAuditRead = (
  ctx: RequestContext,
  who: { readonly spaceId: string; readonly actor: string },
  read: Parameters<typeof recordAuditRead>[1]['read'],
) => Promise<void>;

/** Records audit reads as audit-log-read events, with the request's origin. */
export function auditReadRecorder(commands: CommandContext): RecordAuditRead {
  return (ctx, who, read) =>
    recordAuditRead(commands, {
      spaceId: who.spaceId,
      read,
      metadata: { actor: who.actor, ...requestMetadata(ctx) },
    });
}

/**
 * Records audit reads as {@link auditReadRecorder} does, each first spending one read of the
 * user's `budget` (RateLimitedError past it, and then nothing is recorded: nothing was read).
 */
export function budgetedAuditReadRecorder(
  commands: CommandContext,
  budget: ProofReadBudget,
): (
  ctx: RequestContext,
  who: Authenticated['login'],
  read: Parameters<RecordAuditRead>[2],
) => Promise<void> {
  const record = auditReadRecorder(commands);
  return async (ctx, who, read) => {
    budget.take(`${who.user.issuer}|${who.user.subject}`);
    await record(ctx, who, read);
  };
}
