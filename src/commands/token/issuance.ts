import { accept, type Decision } from '../../domain/decision.js';
import { streams, type DomainEvent, type EventMetadata } from '../../domain/events.js';
import { tokenStreamId } from '../../domain/streams.js';
import { storedForm } from '../../domain/stored-form.js';
import { tokenClaims } from '../../domain/token/claims.js';
import type { Issuance } from '../../domain/token/decide.js';
import type { IssuanceEvent } from '../../domain/token/issuances.js';
import { InvalidDpopProofError, fieldsInvalid, InvalidScopeError } from '../../errors/errors.js';
import {
  salted,
  signAccessTokenWith,
  signatureDigest,
  type AccessTokenClaims,
} from '../../crypto/access-tokens.js';
import type { SigningKey } from '../../crypto/key-store.js';
import type { DpopProof } from '../../crypto/dpop.js';
import type { RateLimitState } from '../../limits/limits.js';
import { inSpan, tracingOn, type Attributes } from '../../observability/tracing.js';
import type { CommandContext } from '../context.js';
import { handle, type Decider, type Loaded, type Refusals } from '../handle.js';
import { signingOfSpace } from '../signing-key/space-signing.js';

/** An access token and its lifetime in seconds. */
export interface IssuedToken {
  readonly token: string;
  readonly expiresIn: number;
  /** `DPoP` for a token bound to a key (RFC 9449 §5), else `Bearer`. */
  readonly tokenType: 'Bearer' | 'DPoP';
  /** The granted scopes' text (RFC 6749 §5.1 `scope`); absent when none were granted. */
  readonly scope?: string;
  /** The client's budget after this request, for the RateLimit headers. */
  readonly rateLimit: RateLimitState;
}

/** What every issuance is asked with: its space, its request, the DPoP proof it spends. */
export interface IssueRequest {
  readonly spaceId: string;
  readonly metadata: EventMetadata;
  readonly dpop?: DpopProof | undefined;
}

/** A request with when and under which ids it is issued, chosen by {@link issue}. */
type IssueCommand<Request> = Request &
  Issuance & {
    /** Signed by the space's own ring: decided once, for its status list and its signature alike. */
    readonly own: boolean;
  };

/** The refusals every issuance answers alike, with a flow's own. */
export function issuanceRefusals<Own extends string, Command>(
  own: Refusals<Own, Command>,
): Refusals<Own | 'invalid_scope' | 'may_act_unknown', Command> {
  const message = 'is not an active client of this space';
  return {
    invalid_scope: (_command, detail) => new InvalidScopeError(detail!),
    may_act_unknown: () => fieldsInvalid({ field: 'may_act', message }),
    ...own,
  };
}

/** What issuing uses whatever the flow: the log, budgets, DPoP's used ids, keys, clock, ids. */
type IssuancePorts = Pick<
  CommandContext,
  | 'events'
  | 'clock'
  | 'ids'
  | 'statusSlots'
  | 'limits'
  | 'usedOnce'
  | 'issuer'
  | 'keys'
  | 'spaceKeys'
>;

/**
 * An issuance flow: what it reads and decides (stream, spending, signing, append are alike).
 * `Ports`: the only part of the context its load, decide and spend are handed (fosite's way).
 */
export interface IssuanceFlow<
  Request extends IssueRequest,
  State,
  Refusal extends string,
  Facts,
  Ports,
> {
  load(ctx: Ports, command: Request): Loaded<State> | Promise<Loaded<State>>;
  decide(
    ctx: Ports,
    command: IssueCommand<Request>,
    state: State,
  ): Decision<DomainEvent<IssuanceEvent>, Refusal, Facts>;
  readonly refusals: Refusals<Refusal, Request>;
  traced?(command: Request): Attributes;
  /** Whose budget the token draws from: taken once decided, so a refusal costs none. */
  payer(command: Request, facts: Facts): Parameters<CommandContext['limits']['clientRequest']>[0];
  /** A budget of the flow's own, spent after the client's (delegation's). */
  spend?(ctx: Ports, command: Request, facts: Facts): Promise<void>;
}

/**
 * Issues through the one handler: decide, spend the budgets and the proof, sign, then append;
 * the token is made from the decided event, and answered only once that committed.
 */
export async function issue<
  Request extends IssueRequest,
  State,
  Refusal extends string,
  Facts,
  Ports,
>(
  ctx: IssuancePorts & Ports,
  flow: IssuanceFlow<Request, State, Refusal, Facts, Ports>,
  request: Request,
  /** The DPoP key the token is bound to; none for a bearer token. */
  jkt = request.dpop?.jkt,
): Promise<IssuedToken> {
  const eventId = request.metadata.request_id;
  const now = ctx.clock.now();
  const jti = ctx.ids.tokenId();
  const own = ctx.spaceKeys?.store.signsOwn(request.spaceId) === true;
  const status = ctx.statusSlots.take(request.spaceId, now, own);
  const command: IssueCommand<Request> = { ...request, now, eventId, jti, jkt, status, own };
  return (await handle(ctx.events, issuanceDecider(ctx, flow), command)).made;
}

// Facts: the decided event in full (its stored form leaves out the jti), and the flow's.
type IssuanceDecider<R, S, Refusal extends string, F> = Decider<
  R,
  S,
  Refusal,
  { readonly event: DomainEvent<IssuanceEvent>; readonly facts: F },
  IssuedToken
>;

// One decider per flow and context, made once: none of it depends on the request (the hot path).
const deciders = new WeakMap<object, Map<object, unknown>>();

function issuanceDecider<Request extends IssueRequest, State, Refusal extends string, Facts, Ports>(
  ctx: IssuancePorts & Ports,
  flow: IssuanceFlow<Request, State, Refusal, Facts, Ports>,
): IssuanceDecider<IssueCommand<Request>, State, Refusal, Facts> {
  let made = deciders.get(ctx);
  if (!made) deciders.set(ctx, (made = new Map()));
  const known = made.get(flow);
  if (known) return known as IssuanceDecider<IssueCommand<Request>, State, Refusal, Facts>;
  const decider: IssuanceDecider<IssueCommand<Request>, State, Refusal, Facts> = {
    stream: ({ spaceId, jti }) => ({ spaceId, stream: streams.token(jti) }),
    load: (command) => flow.load(ctx, command),
    decide: (command, state) => {
      const decision = flow.decide(ctx, command, state);
      if (!decision.ok) return decision;
      const event = decision.events[0]!;
      return accept([storedForm(event, tokenStreamId(command.jti))], {
        event,
        facts: decision.facts,
      });
    },
    evolve: (state) => state,
    refusals: flow.refusals,
    ...(flow.traced && { traced: flow.traced }),
    prepare: async (command, { event, facts }) => {
      // A DPoP proof is good for one request (RFC 9449 §11.1): its jti is remembered across replicas,
      // before any budget is spent, so a captured request replayed costs its client nothing.
      const { dpop, spaceId } = command;
      const used = dpop && {
        spaceId,
        holder: `dpop:${dpop.jkt}`,
        id: dpop.jti,
        expiresAt: dpop.expiresAt,
      };
      if (used && !(await ctx.usedOnce.remember(used, event.eventId))) {
        throw new InvalidDpopProofError('this DPoP proof was already used (jti replayed)');
      }
      const rateLimit = ctx.limits.clientRequest(flow.payer(command, facts));
      if (flow.spend) await flow.spend(ctx, command, facts);
      return signed(ctx, tokenClaims(event, ctx.issuer, spaceId), rateLimit, command.own);
    },
    conflict: { then: 'refuse', message: 'token id collision; retry the request' },
  };
  made.set(flow, decider);
  return decider;
}

/** What signs a space's tokens and lists: its keys and issuer, or the shared ring's. */
export type SigningPorts = Pick<CommandContext, 'events' | 'issuer' | 'keys' | 'spaceKeys'>;

/**
 * A space's own ring (its key, its issuer) when `own`, by default when it signs with one now;
 * undefined: the shared ring signs.
 */
export async function ownSigning(
  ctx: SigningPorts,
  spaceId: string,
  own = ctx.spaceKeys?.store.signsOwn(spaceId) === true,
) {
  if (!own || !ctx.spaceKeys) return undefined;
  return signingOfSpace(ctx.events, ctx.spaceKeys, ctx.issuer, spaceId);
}

/** The token signed, before its issuance is appended: none recorded for a token not made. */
async function signed(
  ctx: IssuancePorts,
  claims: AccessTokenClaims,
  rateLimit: RateLimitState,
  own: boolean,
) {
  // A space with its own ring signs with it and names its own issuer.
  const spaces = ctx.spaceKeys;
  const ring = await ownSigning(ctx, claims.space_id, own);
  const token = ring
    ? await signedWith(ring.key, { ...claims, iss: ring.issuer })
    : await signedWith(ctx.keys.current(), spaces ? salted(claims) : claims);
  const made: IssuedToken = {
    token,
    expiresIn: claims.exp - claims.iat,
    tokenType: claims.cnf ? 'DPoP' : 'Bearer',
    ...(claims.scope ? { scope: claims.scope } : {}),
    rateLimit,
  };
  if (!spaces || own) return { made };
  // A shared-ring token may outlive its space's switch to its own ring: then it is honoured only
  // as this very token (policy/tokens.ts), by what is kept beside its event.
  const digest = signatureDigest(token.slice(token.lastIndexOf('.') + 1));
  return { made, digest: { digest, expiresAt: new Date(claims.exp * 1000) } };
}

// The signature's own span: an HSM's latency shows as this span's length (the token is not in it).
function signedWith(key: SigningKey, claims: AccessTokenClaims): Promise<string> {
  if (!tracingOn()) return signAccessTokenWith(key, claims);
  return inSpan('sign', { 'signer.kind': key.privateKey ? 'local' : 'pkcs11', kid: key.kid }, () =>
    signAccessTokenWith(key, claims),
  );
}
