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

type AllowCommand = DomainCommand & {
  readonly scopes?: readonly string[];
  readonly budgetPerMinute: number;
};
const allowDecider: Decider<AllowCommand> = {
  load,
  decide: decideAllowDomain,
  stream: (_command, facts) => facts,
  refusals,
  inline: ({ issuers }, command) =>
    issuers.writeDomain({
      spaceId: command.spaceId,
      domain: command.domain,
      scopes: command.scopes ?? null,
      budgetPerMinute: command.budgetPerMinute,
      removed: false,
    }),
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
  ask: IssuerAsk & {
    readonly domain: string;
    readonly scopes?: readonly string[];
    readonly budgetPerMinute?: number | undefined;
  },
): Promise<MetadataClientDomain> {
  const budgetPerMinute = ask.budgetPerMinute ?? DEFAULT_DOMAIN_BUDGET_PER_MINUTE;
  const command = { ...ask, budgetPerMinute, eventId: ctx.ids.eventId() };
  return handleLocked(ctx.events, allowDecider, command, async () => ({
    spaceId: ask.spaceId,
    domain: ask.domain,
    scopes: ask.scopes ?? null,
    budgetPerMinute,
    removed: false,
  }));
}

/** Stops allowing a domain: `metadata-client-domain-removed` (nothing when removed before). */
export async function removeMetadataClientDomain(
  ctx: Pick<IssuerAdminContext, 'events' | 'ids'>,
  ask: IssuerAsk & { readonly domain: string },
): Promise<void> {
  await handleLocked(
    ctx.events,
    removeDecider,
    { ...ask, eventId: ctx.ids.eventId() },
    async () => undefined,
  );
}
