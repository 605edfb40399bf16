import {
  decideCreateCredential,
  decideRevokeCredential,
  decideRotateSecret,
  type CreateCredentialCommand,
  type CredentialRefusal,
} from '../../domain/credential/decide.js';
import { decideUpdateCredential } from '../../domain/credential/decide-update.js';
import { evolveCredential, type CredentialEvent } from '../../domain/credential/evolve.js';
import type { Credential } from '../../domain/credential/state.js';
import {
  parseRecorded,
  streams,
  type ClientJwks,
  type EventMetadata,
} from '../../domain/events.js';
import type { Clock, IdGenerator } from '../../domain/ports.js';
import type { ScopeCatalog } from '../../domain/scope-catalog.js';
import type { CredentialLookup } from '../../projections/credential-lookup.js';
import type { IdempotentResponse } from '../../projections/idempotent-responses.js';
import type { Decider } from '../handle.js';
import { overSpaceCeiling, refusalsOf, unknownScope } from './refusals.js';

/** What the credential commands use. */
export interface CredentialPorts {
  readonly credentials: Pick<CredentialLookup, 'findFresh' | 'forget'>;
  readonly ids: IdGenerator;
  readonly clock: Clock;
  readonly spaceRateLimitPerMinute: number;
  readonly scopeCatalog: ScopeCatalog;
}

/** Who asks, for which credential of which space. */
export interface CredentialCommand {
  readonly spaceId: string;
  readonly clientId: string;
  readonly actor: string;
  readonly metadata: EventMetadata;
}

type State = Credential | undefined;
type Shared<Command> = Omit<Decider<Command, State, never>, 'decide' | 'refusals' | 'conflict'>;

const CHANGED = 'the credential changed meanwhile; retry the request';

/** A credential's stream: read fresh, row written with the events, this process's cache dropped. */
function credentialStream<Command extends { spaceId: string; clientId: string }>(
  ports: CredentialPorts,
): Shared<Command> {
  return {
    stream: (command) => ({
      spaceId: command.spaceId,
      stream: streams.credential(command.clientId),
    }),
    load: async (command) => {
      const state = await ports.credentials.findFresh(command.clientId);
      return { state, version: state?.version };
    },
    evolve: (state, event) =>
      evolveCredential(state, parseRecorded<CredentialEvent['type']>(event)),
    inline: (writes, state) => writes.credential(state!),
    forget: (command) => ports.credentials.forget(command.clientId),
  };
}

/** A new credential in a space: its id and secret's hash (or keys) made by the caller. */
export interface CreateCredential extends Omit<
  CreateCredentialCommand,
  'eventId' | 'spaceCeiling' | 'catalog'
> {
  readonly spaceId: string;
}

/** Creates a credential: nothing to read (its id is new; a conflict would be a collision). */
export function createCredentialDecider(
  ports: CredentialPorts,
): Decider<CreateCredential, State, 'over_space_ceiling' | 'invalid_scope'> {
  return {
    ...credentialStream(ports),
    load: async () => ({ state: undefined }),
    decide: (command) =>
      decideCreateCredential({
        ...command,
        eventId: ports.ids.eventId(),
        spaceCeiling: ports.spaceRateLimitPerMinute,
        catalog: ports.scopeCatalog,
      }),
    refusals: {
      over_space_ceiling: () => overSpaceCeiling(ports),
      invalid_scope: (_command, scope) => unknownScope(scope),
    },
    conflict: { then: 'refuse', message: CHANGED },
  };
}

/** A rotation: the new secret's hash, and the response to keep for its Idempotency-Key. */
export interface RotateSecret extends CredentialCommand {
  readonly newSecretHash: string;
  readonly overlapSeconds: number;
  readonly idempotencyKeyHash?: string;
  /** The response kept for retries, made from the rotated credential. */
  readonly keep?: (rotated: Credential) => IdempotentResponse;
}

/** Rotates a secret; on conflict refused, as the winning rotation would end the secret answered. */
export function rotateSecretDecider(
  ports: CredentialPorts,
): Decider<RotateSecret, State, CredentialRefusal> {
  return {
    ...credentialStream<RotateSecret>(ports),
    decide: (command, state) =>
      decideRotateSecret(
        { ...command, eventId: ports.ids.eventId(), now: ports.clock.now() },
        state,
      ),
    inline: async (writes, state, command) => {
      await writes.credential(state!);
      if (command.keep) await writes.idempotentResponse(command.keep(state!));
    },
    refusals: refusalsOf(ports, 'a revoked credential cannot get a new secret'),
    conflict: { then: 'refuse', message: CHANGED },
  };
}

/** Revokes a credential; decided again after a conflict (revoking a revoked one is no change). */
/** A revocation, and whether the admin said the credential was compromised. */
export type RevokeCredential = CredentialCommand & {
  readonly reason: string | null;
  readonly compromised?: boolean;
};

export function revokeCredentialDecider(
  ports: CredentialPorts,
): Decider<RevokeCredential, State, CredentialRefusal> {
  return {
    ...credentialStream(ports),
    decide: (command, state) =>
      decideRevokeCredential({ ...command, eventId: ports.ids.eventId() }, state),
    refusals: refusalsOf(ports, 'the credential is revoked'),
    conflict: { then: 'retry', message: CHANGED },
  };
}

/** Any of a credential's keys, scopes and rate limit, decided together on one reading. */
export interface UpdateCredential extends CredentialCommand {
  readonly jwks?: ClientJwks;
  readonly scopes?: readonly string[];
  readonly rateLimitPerMinute?: number | null;
  readonly redirectUris?: readonly string[];
}

/** Updates a credential; on a conflict, decided again on the credential as it then is. */
export function updateCredentialDecider(
  ports: CredentialPorts,
): Decider<UpdateCredential, State, CredentialRefusal> {
  return {
    ...credentialStream(ports),
    decide: (command, state) =>
      decideUpdateCredential(
        {
          ...command,
          eventIds: () => ports.ids.eventId(),
          catalog: ports.scopeCatalog,
          spaceCeiling: ports.spaceRateLimitPerMinute,
        },
        state,
      ),
    refusals: refusalsOf(ports, 'a revoked credential cannot be changed'),
    conflict: { then: 'retry', message: CHANGED },
  };
}
