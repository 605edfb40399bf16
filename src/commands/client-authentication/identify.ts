import { timingSafeEqual } from 'node:crypto';
import { decodeJwt } from 'jose';
import { decideClientAuthentication } from '../../domain/client-authentication/decide.js';
import { acceptedSecretHashes, type Credential } from '../../domain/credential/state.js';
import type { DomainEvent, EventMetadata } from '../../domain/events.js';
import { InvalidClientError } from '../../errors/errors.js';
import { isClientIdShaped } from '../../crypto/secrets.js';
import { metadataClientIdRefusal } from '../../domain/metadata-client/decide.js';
import { clientActor } from '../../domain/actors.js';
import { ownedBySpace } from '../../domain/policy.js';
import type { CommandContext } from '../context.js';
import { assertionProvesClient } from './assertion.js';
import { authenticateMetadataClient } from './metadata-client.js';
import type { ClientProof } from './proof.js';
import type { AssertionEvidence } from '../../domain/event-data/token.js';
import {
  acceptAssertion,
  AssertionRefused,
  untrustedRefusal,
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
  return [same(current), same(previous)].includes(true);
}

/** After a failure: 429 past the IP's budget for `limitKey`, else counted and, for a known client, recorded. */
async function failedAuthentication(
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

/** An authenticated client; by a trusted issuer's assertion, what its issuance records of it. */
export type AuthenticatedClient = Credential & { readonly assertion?: AssertionEvidence };

/** A trusted issuer's assertion judged for the client it names, in that client's space. */
async function trustedAssertion(
  ctx: CommandContext,
  assertion: string,
  requestId: string,
  named?: Credential,
) {
  if (!named) return untrustedRefusal('iss');
  const { spaceId, clientId } = named;
  const asked = { spaceId, assertion, named: clientId, authenticates: true as const, requestId };
  return acceptAssertion(ctx, asked).catch((error: unknown) => {
    if (error instanceof AssertionRefused) return error;
    throw error;
  });
}

/** What is presented as a client's proof, and where. */
export type Presented =
  /** At an endpoint: a secret, private_key_jwt or an issuer's assertion (RFC 7523 §2.2). */
  | { readonly as: 'client'; readonly proof: ClientProof }
  /** A client ID metadata document's client (its id the URL) at an endpoint, in the space. */
  | {
      readonly as: 'document';
      readonly clientId: string;
      readonly assertion: string;
      readonly spaceId: string;
    }
  /** In a space: an RFC 8693 actor_token JWT (its client's own assertion, or an issuer's), or an
   * RFC 7523 §2.1 workload's assertion (an issuer's, for its rule's client, `named` if sent). */
  | {
      readonly as: 'actor' | 'workload';
      readonly assertion: string;
      readonly spaceId: string;
      readonly named?: string | undefined;
    };

/** Where a proof came from, and the error its refusal answers (the reason, if one is told). */
export interface Identification {
  readonly origin: Omit<EventMetadata, 'actor'>;
  readonly refused: (reason?: string) => Error;
}

/** Client authentication at an endpoint: a refusal is RFC 6749 §5.2's invalid_client. */
export const atEndpoint = (origin: Omit<EventMetadata, 'actor'>): Identification => ({
  origin,
  refused: (reason) => new InvalidClientError(reason),
});

/**
 * Who is this client: the one entry for every proof a client presents. A refusal is counted per
 * client (an issuer's: per space) and IP, recorded for the client it claimed to be, and answered
 * as the caller's `refused`. The right proof is always served: the lockout only stops guessing, so
 * no one locks a storefront out from an address it shares.
 */
export async function identifyClient(
  ctx: CommandContext,
  presented: Presented,
  how: Identification,
): Promise<AuthenticatedClient> {
  if (presented.as === 'client') return byProof(ctx, presented.proof, how);
  if (presented.as === 'document') {
    const metadata = clientOrigin(presented, how);
    return authenticateMetadataClient(ctx, { ...presented, metadata }, how.refused);
  }
  const { as, assertion, spaceId, named } = presented;
  const { iss, sub } = as === 'actor' ? issuerOf(assertion) : { iss: '', sub: '' };
  // An agent known by its metadata document: iss = sub = its https URL, of no issuer trusted here.
  const byDocument = iss === sub && !metadataClientIdRefusal(iss);
  if (byDocument && !(await ctx.trustedIssuers?.find(spaceId, iss))) {
    return identifyClient(ctx, { as: 'document', clientId: iss, assertion, spaceId }, how);
  }
  const own = isClientIdShaped(iss) ? await ctx.credentials.find(iss) : undefined;
  // Another space's client is judged as an issuer's assertion: nothing of it told or recorded.
  if (own?.jwks && ownedBySpace(own, spaceId)) {
    return byProof(ctx, { method: 'assertion', clientId: iss, assertion }, how);
  }
  // An issuer's assertion, for the client its matched rule names: refused, counted per space.
  const asked = {
    spaceId,
    assertion,
    requestId: how.origin.request_id,
    ...(named === undefined ? {} : { named }),
  };
  const accepted = await acceptAssertion(ctx, asked).catch(async (error: unknown) => {
    if (!(error instanceof AssertionRefused)) throw error;
    const claimed = error.clientId && (await ctx.credentials.find(error.clientId));
    const credential = claimed && ownedBySpace(claimed, spaceId) ? claimed : undefined;
    const asserted = { secretMatches: false, method: 'assertion', claim: error.claim } as const;
    const [failure] = credential
      ? decideClientAuthentication(
          { ...asserted, eventId: ctx.ids.eventId(), metadata: clientOrigin(credential, how) },
          credential,
        ).events
      : [];
    const known = failure && { spaceId, failure };
    await failedAuthentication(ctx, `jwt-bearer:${spaceId}`, how.origin.client_ip, known);
    throw how.refused(error.message);
  });
  return { ...accepted.credential, assertion: accepted.evidence };
}

/** A client's event metadata: it is the actor, from where the proof came. */
const clientOrigin = ({ clientId }: { readonly clientId: string }, how: Identification) => ({
  actor: clientActor(clientId),
  ...how.origin,
});

/** The `iss` and `sub` a JWT names, unverified: whose keys to check it with ('' when none). */
function issuerOf(token: string): { readonly iss: string; readonly sub: string } {
  try {
    const { iss, sub } = decodeJwt(token);
    return { iss: typeof iss === 'string' ? iss : '', sub: typeof sub === 'string' ? sub : '' };
  } catch {
    return { iss: '', sub: '' };
  }
}

/** A client's proof at an endpoint; an id that cannot be ours is refused before any lookup or count. */
async function byProof(
  ctx: CommandContext,
  proof: ClientProof,
  how: Identification,
): Promise<AuthenticatedClient> {
  if (!isClientIdShaped(proof.clientId)) throw how.refused();
  const credential = await ctx.credentials.find(proof.clientId);
  const proven =
    proof.method === 'secret'
      ? clientSecretMatches(ctx, proof.secret, credential)
      : proof.method === 'assertion'
        ? await assertionProvesClient(ctx, proof.assertion, credential, how.origin.request_id)
        : await trustedAssertion(ctx, proof.assertion, how.origin.request_id, credential);
  const outcome = decideClientAuthentication(
    {
      secretMatches: proven !== false && !(proven instanceof AssertionRefused),
      method: proof.method === 'secret' ? 'secret' : 'assertion',
      ...(proven instanceof AssertionRefused ? { claim: proven.claim } : {}),
      eventId: ctx.ids.eventId(),
      metadata: clientOrigin(proof, how),
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
    how.origin.client_ip,
    outcome.events[0] && credential
      ? { spaceId: credential.spaceId, failure: outcome.events[0] }
      : undefined,
  );
  throw how.refused(proven instanceof AssertionRefused ? proven.message : undefined);
}
