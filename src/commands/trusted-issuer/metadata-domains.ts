import {
  decideAllowDomain,
  decideRemoveDomain,
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

type AllowCommand = DomainCommand & { readonly scopes?: readonly string[]; maxDomains: number };
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
  inline: ({ issuers }, command) =>
    issuers.writeDomain({
      spaceId: command.spaceId,
      domain: command.domain,
      scopes: command.scopes ?? null,
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

/** Allows a domain's metadata documents as clients of the space with at most `scopes`. */
export async function allowMetadataClientDomain(
  ctx: Pick<IssuerAdminContext, 'events' | 'ids' | 'maxDomains'>,
  ask: IssuerAsk & { readonly domain: string; readonly scopes?: readonly string[] },
): Promise<MetadataClientDomain> {
  const command = { ...ask, eventId: ctx.ids.eventId(), maxDomains: ctx.maxDomains };
  return handleLocked(ctx.events, allowDecider, command, async () => ({
    spaceId: ask.spaceId,
    domain: ask.domain,
    scopes: ask.scopes ?? null,
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
