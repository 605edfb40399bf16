import type { Asked } from '../../domain/events.js';
import type { TrustedIssuerDefinition } from '../../domain/event-data/trusted-issuer.js';
import {
  decideAddIssuer,
  decideChangeIssuer,
  decideRemoveIssuer,
  type IssuerCommand,
  type IssuerRefusal,
  type TrustedIssuerState,
} from '../../domain/trusted-issuer/decide.js';
import { ConflictError, InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import type { WithIssuerWrites } from '../../projections/trusted-issuers.js';
import type { LockedDecider, Placed, Refusals } from '../handle.js';

/** An add or a change: the judged command and the definition, `sameIss` read in the decider. */
export type IssuerDefinitionCommand = Omit<IssuerCommand, 'sameIss'> & {
  readonly definition: TrustedIssuerDefinition;
  readonly maxIssuers: number;
};

/** A removal: who, where, which. */
export interface RemoveIssuerCommand extends Asked {
  readonly spaceId: string;
  readonly issuerId: string;
}

const refusals: Refusals<IssuerRefusal, object> = {
  not_found: () => new NotFoundError('no trusted issuer of that id in this space'),
  duplicate_iss: () =>
    new ConflictError('this space already trusts an issuer with that iss: change that one'),
  issuer_limit: (command) =>
    new ConflictError(
      `this space has its limit of ${(command as IssuerDefinitionCommand).maxIssuers} trusted issuers (TRUSTED_ISSUER_MAX_PER_SPACE): remove one before adding another`,
    ),
  invalid_definition: (_command, detail) =>
    new InvalidRequestError(`trusted issuer refused: ${detail ?? ''}`, [
      { field: (detail ?? 'issuer').split(':')[0]!, message: detail ?? 'refused' },
    ]),
};

type Decider<Command, State> = LockedDecider<
  Command,
  State,
  IssuerRefusal,
  Placed,
  WithIssuerWrites
>;

/** The row an add or a change leaves: the issuer as defined, trusted. */
const written = (command: IssuerDefinitionCommand): TrustedIssuerState => ({
  issuerId: command.issuerId,
  spaceId: command.spaceId,
  definition: command.definition,
  removed: false,
});

/** Adds under the space's lock, so two adds of one `iss` cannot both find it free. */
export const addIssuerDecider: Decider<
  IssuerDefinitionCommand,
  { sameIss?: string; count: number }
> = {
  load: async ({ issuers }, command) => {
    await issuers.lockSpace(command.spaceId);
    return {
      sameIss: await issuers.liveIdOf(command.spaceId, command.definition.iss),
      count: await issuers.liveCount(command.spaceId, 'trusted_issuers'),
    };
  },
  decide: (command, { sameIss, count }) =>
    decideAddIssuer({ ...command, sameIss, issuers: { count, limit: command.maxIssuers } }),
  stream: (_command, facts) => facts,
  refusals,
  inline: ({ issuers }, command) => issuers.write(written(command)),
};

/** Changes under the space's lock and the issuer's row lock. */
export const changeIssuerDecider: Decider<
  IssuerDefinitionCommand,
  { readonly state: TrustedIssuerState | undefined; readonly sameIss: string | undefined }
> = {
  load: async ({ issuers }, command) => {
    await issuers.lockSpace(command.spaceId);
    return {
      state: await issuers.locked(command.issuerId),
      sameIss: await issuers.liveIdOf(command.spaceId, command.definition.iss),
    };
  },
  decide: (command, { state, sameIss }) =>
    decideChangeIssuer({ ...command, ...(sameIss === undefined ? {} : { sameIss }) }, state),
  stream: (_command, facts) => facts,
  refusals,
  inline: ({ issuers }, command) => issuers.write(written(command)),
};

/** Removes: the row stays, marked, and no longer trusted. */
export const removeIssuerDecider: Decider<RemoveIssuerCommand, TrustedIssuerState | undefined> = {
  load: ({ issuers }, command) => issuers.locked(command.issuerId),
  decide: (command, state) => decideRemoveIssuer(command, state),
  stream: (_command, facts) => facts,
  refusals,
  inline: ({ issuers }, _command, state) => issuers.write({ ...state!, removed: true }),
};
