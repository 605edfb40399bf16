import {
  decideAllowDomain,
  decideRemoveDomain,
  DEFAULT_DOMAIN_BUDGET_PER_MINUTE,
  type DomainCommand,
  type MetadataClientDomain,
} from '../../domain/metadata-client/decide.js';
import { ConflictError, NotFoundError } from '../../errors/errors.js';
import type { WithIssuerWrites } from '../../projections/trusted-issuers.js';
import { handleLocked, type LockedDecider, type Placed } from '../handle.js';
import type { IssuerAdminContext, IssuerAsk } from './admin.js';

type Decider<Command, State = MetadataClientDomain | undefined> = LockedDecider<
  Command,
  State,
  'not_found' | 'domain_limit',
  Placed,
  WithIssuerWrites
>;

const refusals = {
  not_found: () => new NotFoundError('this space does not allow that domain'),
  domain_limit: (command: object) =>
    new ConflictError(
      `this space has its limit of ${(command as AllowCommand).maxDomains} metadata client domains (METADATA_DOMAIN_MAX_PER_SPACE): remove one before allowing another`,
    ),
};
const load = ({ issuers }: WithIssuerWrites, command: DomainCommand) =>
  issuers.lockedDomain(command.spaceId, command.domain);

type AllowCommand = Parameters<typeof decideAllowDomain>[0] & { readonly maxDomains: number };
const allowed = ({ spaceId, domain, scopes, budgetPerMinute }: AllowCommand) => ({
  spaceId,
  domain,
  scopes: scopes ?? null,
  budgetPerMinute,
  removed: false,
});
const allowDecider: Decider<AllowCommand, { state?: MetadataClientDomain; count: number }> = {
  // Under the space's lock: two allows cannot both see room for one more.
  load: async (writes, command) => {
    await writes.issuers.lockSpace(command.spaceId);
    const count = await writes.issuers.liveCount(command.spaceId, 'metadata_client_domains');
    return { state: await load(writes, command), count };
  },
  decide: (command, { state, count }) =>
    decideAllowDomain({ ...command, domains: { count, limit: command.maxDomains } }, state),
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
  ctx: Pick<IssuerAdminContext, 'events' | 'ids' | 'maxDomains'>,
  ask: IssuerAsk & Pick<AllowCommand, 'domain' | 'scopes'> & { readonly budgetPerMinute?: number },
): Promise<MetadataClientDomain> {
  const budgetPerMinute = ask.budgetPerMinute ?? DEFAULT_DOMAIN_BUDGET_PER_MINUTE;
  const command = {
    ...ask,
    budgetPerMinute,
    eventId: ctx.ids.eventId(),
    maxDomains: ctx.maxDomains,
  };
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
