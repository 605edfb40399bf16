import { decideIssuePrivateToken } from '../../../domain/token/decide.js';
import type { Credential } from '../../../domain/credential/state.js';
import type { AssertionEvidence } from '../../../domain/event-data/token.js';
import { InvalidTargetError } from '../../../errors/errors.js';
import type { CommandContext } from '../../context.js';
import { NOTHING } from '../../recording.js';
import {
  issuanceRefusals,
  issue,
  type IssuanceFlow,
  type IssueRequest,
  type IssuedToken,
} from '../issuance.js';

/** A private token's issuance: the credential already proven, the grant left to judge. */
interface PrivateRequest extends IssueRequest {
  readonly credential: Credential;
  readonly audience: string;
  readonly scopes?: readonly string[] | undefined;
  readonly grantType?: string | undefined;
  /** What a jwt-bearer grant presented instead of a secret. */
  readonly assertion?: AssertionEvidence | undefined;
  /** A client ID metadata document's client: its URL. */
  readonly metadataDocument?: string | undefined;
}

type PrivateRefusal = 'invalid_target' | 'invalid_scope';
type PrivatePorts = Pick<
  CommandContext,
  'privateAudiences' | 'privateTokenTtlSeconds' | 'scopeCatalog'
>;

const PRIVATE: IssuanceFlow<PrivateRequest, undefined, PrivateRefusal, unknown, PrivatePorts> = {
  load: () => NOTHING,
  decide: (ctx, command) =>
    decideIssuePrivateToken(command, command.credential, {
      audiences: ctx.privateAudiences,
      ttlSeconds: ctx.privateTokenTtlSeconds,
      catalog: ctx.scopeCatalog,
    }),
  refusals: issuanceRefusals({
    invalid_target: (command: PrivateRequest) => new InvalidTargetError(command.audience),
  }),
  traced: (command) => ({
    'oauth.grant_type': command.grantType ?? 'client_credentials',
    'oauth.client_id': command.credential.clientId,
    'tenant.space_id': command.spaceId,
  }),
  payer: (command) => command.credential,
};

/** A private token for a credential already proven (secret, key, or trusted assertion). */
export function issuePrivateTokenTo(
  ctx: CommandContext,
  credential: Credential,
  command: Omit<PrivateRequest, 'credential' | 'spaceId'>,
): Promise<IssuedToken> {
  return issue(ctx, PRIVATE, { ...command, credential, spaceId: credential.spaceId });
}
