import {
  decideAllowDomain,
  decideRemoveDomain,
  DEFAULT_DOMAIN_BUDGET_PER_MINUTE,
  type DomainCommand,
  type MetadataClientDomain,
} from '../../domain/metadata-client/decide.js';
import { NotFoundError } from '../../errors/errors.js';
import type { WithIssuerWrites } from '../../projections/trusted-issuers.js';
import { handleLocked, type LockedDecider, type Placed } from '../handle.js';
import type { IssuerAdminContext, IssuerAsk } from './admin.js';

type Decider<Command> = LockedDecider<
  Command,
  MetadataClientDomain | undefined,
  'not_found',
  Placed,
  WithIssuerWrites
>;

const refusals = { not_found: () => new NotFoundError('this space does not allow that domain') };
const load = ({ issuers }: WithIssuerWrites, command: DomainCommand) =>
  issuers.lockedDomain(command.spaceId, command.domain);

type AllowCommand = Parameters<typeof decideAllowDomain>[0];
const allowed = ({ spaceId, domain, scopes, budgetPerMinute }: AllowCommand) => ({
  spaceId,
  domain,
  scopes: scopes ?? null,
  budgetPerMinute,
  removed: false,
});
const allowDecider: Decider<AllowCommand> = {
  load,
  decide: decideAllowDomain,
  stream: (_command, facts) => facts,
  refusals,
  inline: ({ issuers }, command) => issuers.writeDomain(allowed(command)),
};

const removeDecider: Decider<DomainCommand> = {
  load,
  decide: decideRemoveDomain,
  stream: (_command, facts) => facts,
  refusals,
  inline: ({ issuers }, _command, state) => issuers.writeDomain({ ...state!, removed: true }),
};

/** Allows a domain's metadata documents as clients of the space: at most `scopes`, one budget. */
export async function allowMetadataClientDomain(
  ctx: Pick<IssuerAdminContext, 'events' | 'ids'>,
  ask: IssuerAsk & Pick<AllowCommand, 'domain' | 'scopes'> & { readonly budgetPerMinute?: number },
): Promise<MetadataClientDomain> {
  const budgetPerMinute = ask.budgetPerMinute ?? DEFAULT_DOMAIN_BUDGET_PER_MINUTE;
  const command = { ...ask, budgetPerMinute, eventId: ctx.ids.eventId() };
  return handleLocked(ctx.events, allowDecider, command, async () => allowed(command));
}

/** Stops allowing a domain: `metadata-client-domain-removed` (nothing when removed before). */
export async function removeMetadataClientDomain(
  ctx: Pick<IssuerAdminContext, 'events' | 'ids'>,
  ask: IssuerAsk & { readonly domain: string },
): Promise<void> {
  const command = { ...ask, eventId: ctx.ids.eventId() };
  await handleLocked(ctx.events, removeDecider, command, async () => undefined);
}
