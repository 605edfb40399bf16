import { timingSafeEqual } from 'node:crypto';
import { decodeJwt, type JWTPayload } from 'jose';
import { decideClientAuthentication } from '../../domain/client-authentication/decide.js';
import { acceptedSecretHashes, type Credential } from '../../domain/credential/state.js';
import type { DomainEvent, EventMetadata } from '../../domain/events.js';
import { InvalidClientError } from '../../errors/errors.js';
import { isClientIdShaped } from '../../crypto/secrets.js';
import { clientActor } from '../../domain/actors.js';
import { ownedBySpace } from '../../domain/policy.js';
import type { CommandContext } from '../context.js';
import { assertionProvesClient } from './assertion.js';
import type { AssertionEvidence } from '../../domain/event-data/token.js';
import {
  acceptAssertion,
  AssertionRefused,
  type AssertedCredential,
} from '../trusted-issuer/assertion-check.js';

// Compared against when there is no hash, so every path costs the same two HMACs.
const NO_HASH = Buffer.alloc(32);

/** Whether `secret` is current or overlapping; always two constant-time comparisons. */
function clientSecretMatches(
  ctx: CommandContext,
  secret: string,
  credential: Credential | undefined,
): boolean {
  const [current, previous] = acceptedSecretHashes(credential, ctx.clock.now());
  const candidate = ctx.hasher.hash(secret);
  const same = (stored: Buffer | null) =>
    timingSafeEqual(candidate, stored && stored.length === candidate.length ? stored : NO_HASH) &&
    stored !== null;
  const matchesCurrent = same(current);
  const matchesPrevious = same(previous);
  return matchesCurrent || matchesPrevious;
}

/** After a failure: 429 past the IP's budget for `limitKey`, else counted and, for a known client, recorded. */
export async function failedAuthentication(
  ctx: CommandContext,
  limitKey: string,
  ip: string,
  known?: {
    readonly spaceId: string;
    readonly failure: DomainEvent<'client-authentication-failed'>;
  },
): Promise<void> {
  try {
    ctx.limits.assertClientNotLockedOut(limitKey, ip);
  } catch (error) {
    if (known) ctx.failures.refused(known.spaceId, known.failure.data.client_id, ip);
    throw error;
  }
  ctx.limits.failedClientAuthentication(limitKey, ip);
  if (known) await ctx.failures.failed(known.spaceId, known.failure, ip);
}

/**
 * An assertion refused outside client authentication (jwt-bearer, an actor_token): counted per
 * `limitKey` (an issuer's: per space) and IP, recorded for the client it claimed to be, if any.
 */
export async function refusedAssertion(
  ctx: CommandContext,
  spaceId: string,
  refusal: { readonly clientId: string | undefined; readonly claim?: string },
  origin: Omit<EventMetadata, 'actor'>,
  limitKey = `jwt-bearer:${spaceId}`,
): Promise<void> {
  const claimed = refusal.clientId && (await ctx.credentials.find(refusal.clientId));
  const credential = claimed && ownedBySpace(claimed, spaceId) ? claimed : undefined;
  const [failure] = credential
    ? decideClientAuthentication(
        {
          secretMatches: false,
          method: 'assertion',
          claim: refusal.claim,
          eventId: ctx.ids.eventId(),
          metadata: { actor: clientActor(credential.clientId), ...origin },
        },
        credential,
      ).events
    : [];
  await failedAuthentication(ctx, limitKey, origin.client_ip, failure && { spaceId, failure });
}

/** How a client proves who it is: its secret, an assertion signed with its key, or a trusted issuer's. */
export type ClientProof =
  | { readonly method: 'secret'; readonly clientId: string; readonly secret: string }
  | {
      /** `assertion`: private_key_jwt; `trusted-issuer`: RFC 7523 §2.2 by a space's issuer. */
      readonly method: 'assertion' | 'trusted-issuer';
      readonly clientId: string;
      readonly assertion: string;
    };

/** What an unverified `client_assertion` claims: a client's own (iss = sub), or a trusted issuer's. */
export function assertionProof(assertion: string, named: string | undefined): ClientProof {
  let claims: JWTPayload;
  try {
    claims = decodeJwt(assertion);
  } catch {
    throw new InvalidClientError();
  }
  const federated = typeof claims.iss === 'string' && claims.iss !== claims.sub;
  const clientId = named ?? (federated ? undefined : claims.sub);
  if (typeof clientId !== 'string' || (!federated && clientId !== claims.sub)) {
    throw new InvalidClientError(
      federated ? "client_id: required with an issuer's assertion" : undefined,
    );
  }
  return { method: federated ? 'trusted-issuer' : 'assertion', clientId, assertion };
}

/** An authenticated client; by a trusted issuer's assertion, what its issuance records of it. */
export type AuthenticatedClient = Credential & { readonly assertion?: AssertionEvidence };

/** A trusted issuer's assertion judged for the client it names, in that client's space. */
async function trustedAssertion(
  ctx: CommandContext,
  assertion: string,
  credential: Credential | undefined,
): Promise<AssertedCredential | AssertionRefused | false> {
  if (!credential) return false;
  const { spaceId, clientId: named } = credential;
  return acceptAssertion(ctx, { spaceId, assertion, named, authenticates: true }).catch(
    (error: unknown) => {
      if (error instanceof AssertionRefused) return error;
      throw error;
    },
  );
}

/**
 * Authenticates a client by secret, private_key_jwt or a trusted issuer's assertion. The right
 * proof is always served: the lockout only stops guessing, so no one locks a storefront out from
 * an address it shares. An id that cannot be ours is refused before any lookup or count.
 */
export async function authenticateClient(
  ctx: CommandContext,
  command: { readonly proof: ClientProof; readonly metadata: EventMetadata },
): Promise<AuthenticatedClient> {
  const { proof } = command;
  if (!isClientIdShaped(proof.clientId)) throw new InvalidClientError();
  const credential = await ctx.credentials.find(proof.clientId);
  const proven =
    proof.method === 'secret'
      ? clientSecretMatches(ctx, proof.secret, credential)
      : proof.method === 'assertion'
        ? await assertionProvesClient(ctx, proof.assertion, credential)
        : await trustedAssertion(ctx, proof.assertion, credential);
  const outcome = decideClientAuthentication(
    {
      secretMatches: proven !== false && !(proven instanceof AssertionRefused),
      method: proof.method === 'secret' ? 'secret' : 'assertion',
      ...(proven instanceof AssertionRefused ? { claim: proven.claim } : {}),
      eventId: ctx.ids.eventId(),
      metadata: command.metadata,
    },
    credential,
  );
  if (outcome.ok) {
    return typeof proven === 'object' && 'evidence' in proven
      ? { ...proven.credential, assertion: proven.evidence }
      : outcome.facts;
  }
  await failedAuthentication(
    ctx,
    proof.clientId,
    command.metadata.client_ip,
    outcome.events[0] && credential
      ? { spaceId: credential.spaceId, failure: outcome.events[0] }
      : undefined,
  );
  throw new InvalidClientError(proven instanceof AssertionRefused ? proven.message : undefined);
}
