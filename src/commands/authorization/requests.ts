import { consentEndsAt } from '../../domain/authorization/consent.js';
import { consentVoided } from '../../domain/policy.js';
import {
  evolveAuthorization,
  type AuthorizationRefusal,
  type AuthorizationRequestState,
} from '../../domain/authorization/decide.js';
import type { Decision } from '../../domain/decision.js';
import { parseRecorded, streams, type EventMetadata } from '../../domain/events.js';
import { msOf, secondsOf } from '../../domain/times.js';
import type { NewEvent } from '#event-log/types.js';
import { NotFoundError } from '../../errors/errors.js';
import type { CommandContext } from '../context.js';
import { handle, type Decider, type Refusals } from '../handle.js';

/** What a request's steps use: the log, its rows, the clock, ids, the revocations to note. */
export type AuthorizationPorts = Pick<
  CommandContext,
  'events' | 'clock' | 'ids' | 'authorizations' | 'revocations' | 'publicTokenTtlSeconds'
>;

/** A request's state with its stream's version, as its row keeps it. */
export type Held = (AuthorizationRequestState & { readonly version: number }) | undefined;

/** Every step names its request and, once known, its space. */
export interface RequestStep {
  readonly requestId: string;
  readonly spaceId: string;
  readonly now: number;
  readonly eventId: string;
  readonly metadata: EventMetadata;
}

const rowKey = (requestId: string) => `request-${requestId}`;

/** The request's row as it is now, or undefined. */
export async function readRequest(ports: AuthorizationPorts, requestId: string): Promise<Held> {
  const row = await authorizationRows(ports).read(rowKey(requestId));
  return row && { ...(row.state as AuthorizationRequestState), version: row.version };
}

/** The requests a customer consented to in the space, as their rows are now. */
export async function readConsents(
  ports: AuthorizationPorts,
  spaceId: string,
  customerId: string,
): Promise<
  ReadonlyArray<{ readonly requestId: string; readonly state: AuthorizationRequestState }>
> {
  const rows = await authorizationRows(ports).consentsOf(spaceId, customerId);
  return rows.map(({ key, state }) => ({
    requestId: key.slice(rowKey('').length),
    state: state as AuthorizationRequestState,
  }));
}

/** The rows, or a 404 where the service runs no authorization endpoint. */
export function authorizationRows(ports: Pick<CommandContext, 'authorizations'>) {
  return ports.authorizations ?? notServed();
}

const notServed = (): never => {
  throw new NotFoundError('this service runs no authorization endpoint');
};

/**
 * One step of a request, run by the one handler: its row read now, the decision, the row written
 * with the events. A consent voided revokes the request's id, which every token it bought names.
 */
export async function onRequest<Command extends RequestStep, Facts>(
  ports: AuthorizationPorts,
  command: Command,
  decide: (
    command: Command,
    state: AuthorizationRequestState | undefined,
  ) => Decision<NewEvent, AuthorizationRefusal, Facts>,
  refusals: Refusals<AuthorizationRefusal, Command>,
  /** The row as the caller just read it: the first attempt decides on it (its version is checked). */
  held?: Held,
) {
  let preloaded = held;
  const decider: Decider<Command, Held, AuthorizationRefusal, Facts> = {
    stream: ({ spaceId, requestId }) => ({
      spaceId,
      stream: streams.authorizationRequest(requestId),
    }),
    load: async ({ requestId }) => {
      const state = preloaded ?? (await readRequest(ports, requestId));
      preloaded = undefined;
      return state ? { state, version: state.version } : { state };
    },
    decide,
    evolve: (state, event) => {
      const after = evolveAuthorization(state, parseRecorded(event));
      return after && { ...after, version: event.streamPosition };
    },
    inline: async (writes, state, { requestId }) => {
      if (!state) return;
      const { version, ...kept } = state;
      const { spaceId } = state;
      // A consent's row lives as long as the consent: its refresh tokens are read from it.
      const redeemed = state.status !== 'code-issued' && state.status !== 'accepted';
      const endsAt = state.consent && redeemed ? consentEndsAt(state) : state.asked.expires_at;
      const expiresAt = new Date(endsAt * 1000);
      await writes.authorizationState({
        spaceId,
        key: rowKey(requestId),
        state: kept,
        version,
        expiresAt,
      });
      if (consentVoided(state))
        await writes.tokenRevocation(spaceId, voided(ports, state, requestId));
    },
    forget: (_command, state) => {
      if (!state || !consentVoided(state)) return;
      const { jti, expiresAt } = voided(ports, state, _command.requestId);
      ports.revocations.noteRevoked(jti, msOf(expiresAt));
    },
    refusals,
    conflict: { then: 'retry', message: 'the authorization request changed meanwhile; retry' },
  };
  return handle(ports.events, decider, command);
}

/**
 * The revocation of what a consent bought (a code or refresh token reused, or the consent
 * withdrawn): its request's id, which every token it bought names, past every token's end.
 */
function voided(ports: AuthorizationPorts, state: AuthorizationRequestState, requestId: string) {
  const now = secondsOf(ports.clock.now());
  return {
    jti: requestId,
    clientId: state.asked.client_id,
    kind: 'public' as const,
    expiresAt: Math.max(now + ports.publicTokenTtlSeconds, consentEndsAt(state)),
    revokedAt: ports.clock.now(),
  };
}
