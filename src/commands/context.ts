import type { StatusSlots } from '../crypto/status-slots.js';
import type { EventStore } from '#event-log/event-store.js';
import type { InlineWrites } from '../projections/inline-writes.js';
import type { CredentialLookup } from '../projections/credential-lookup.js';
import type { Clock, IdGenerator } from '../domain/ports.js';
import type { ScopeCatalog } from '../domain/scope-catalog.js';
import type { SecretHasher } from '../crypto/secrets.js';
import type { AccessTokenVerifier } from '../crypto/access-tokens.js';
import type { KeyStore } from '../crypto/key-store.js';
import type { TokenSigner } from '../crypto/token-signer.js';
import type { Limits } from '../limits/limits.js';
import type { FailureEvents } from './client-authentication/failure-events.js';
import type { AuthorizationRefusals } from './authorization/refusal-events.js';
import type { AccessRefusals } from './access-refusal/record.js';
import type { RevocationLookup } from '../projections/revocation-lookup.js';
import type { IdempotentResponse } from '../projections/idempotent-responses.js';
import type { UsedOnce } from '../projections/used-once-ids.js';
import type { KeyEncryptionKey } from '../crypto/key-encryption.js';
import type { SpaceSigning } from './signing-key/space-signing.js';
import type { WithSinkWrites } from '../delivery/sink-writes.js';
import type { WithIssuerWrites } from '../projections/trusted-issuers.js';
import type { MetadataClientPorts, TrustedIssuerPorts } from './trusted-issuer/ports.js';
import type { AuthorizationStateRow } from '../projections/authorization-states.js';

/** The delegation settings: how deep a chain nests, and each agent's budget per customer. */
export interface DelegationLimits {
  readonly maxDepth: number;
  readonly budget: { readonly count: number; readonly windowSeconds: number };
}

/** What the commands' appends and transactions are handed: the inline writes, the sinks', the issuers'. */
export type CommandWrites = InlineWrites & WithSinkWrites & WithIssuerWrites;

/** Everything a command handler may use. Built once at start-up (src/cli/api-server.ts). */
export interface CommandContext {
  /** The only way a command writes: appends that announce themselves (NOTIFY, metrics). */
  readonly events: EventStore<CommandWrites>;
  /** The credentials read model, cached for at most CREDENTIAL_CACHE_TTL_MS. */
  readonly credentials: CredentialLookup;
  /** Revoked token ids, refreshed every REVOCATION_REFRESH_MS. */
  readonly revocations: RevocationLookup;
  /** The shared key ring: every space's tokens but those of spaces with keys of their own. */
  readonly keys: KeyStore;
  /** What signs (SIGNING_BACKEND), for readiness; absent where nothing signs through one. */
  readonly signer?: Pick<TokenSigner, 'health' | 'stats'>;
  /** The spaces' own key rings; absent: every space signs with the shared ring. */
  readonly spaceKeys?: SpaceSigning;
  /** This process's budgets (per client, failed authentications, bad login tokens). */
  readonly limits: Limits;
  /** Failed-authentication events, at most FAILED_AUTH_EVENTS_PER_MINUTE per client a minute. */
  readonly failures: FailureEvents;
  /** Refused login-token requests as events, at most FAILED_AUTH_EVENTS_PER_MINUTE per subject. */
  readonly refusals: AccessRefusals;
  /** Refused authorization requests as events, at most FAILED_AUTH_EVENTS_PER_MINUTE per space and error. */
  readonly authorizationRefusals: AuthorizationRefusals;
  /** Verifies our own access tokens (memoised). */
  readonly verifier: AccessTokenVerifier;
  /** Private tokens for Shared Signals stream management (SSF 1.0 §8), and only those. */
  readonly streamsVerifier: AccessTokenVerifier;
  readonly hasher: SecretHasher;
  /**
   * Ids used once (client assertions, DPoP proofs), shared by every API process until expiry.
   * Each is a write for the request `requestId` names, refused past its deadline as an append is.
   */
  readonly usedOnce: {
    /** False when this id was already presented by this holder: a replay. */
    remember(used: UsedOnce, requestId: string): Promise<boolean>;
    /** The first of `ids` not yet presented, now recorded (its index); undefined: all were. */
    rememberFirst(
      used: Omit<UsedOnce, 'id'> & { readonly ids: readonly string[] },
      requestId: string,
    ): Promise<number | undefined>;
  };
  /** Seals what must be kept a short while and shown again (an idempotent rotation's secret). */
  readonly kek: KeyEncryptionKey;
  /** Responses kept for Idempotency-Key retries, for IDEMPOTENCY_KEY_TTL_SECONDS. */
  readonly idempotentResponses: {
    find(spaceId: string, keyHash: string): Promise<IdempotentResponse | undefined>;
    readonly ttlSeconds: number;
  };
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Each token's entry in its space's status list, this process's own lists (issue 65). */
  readonly statusSlots: StatusSlots;
  readonly issuer: string;
  readonly audiences: readonly string[];
  /** What a private token may name: the Storefront audiences and Shared Signals management. */
  readonly privateAudiences: readonly string[];
  readonly privateTokenTtlSeconds: number;
  readonly publicTokenTtlSeconds: number;
  /** SPACE_RATE_LIMIT_PER_MINUTE: what no client's own limit may exceed. */
  readonly spaceRateLimitPerMinute: number;
  /** DELEGATION_*: the bounds of agents acting for customers; absent: the defaults. */
  readonly delegation?: DelegationLimits;
  /** SCOPE_CATALOG: each audience's scopes (empty: tokens carry none). */
  readonly scopeCatalog: ScopeCatalog;
  /** The spaces' trusted issuers, for the jwt-bearer grant; absent: that grant is refused. */
  readonly trustedIssuers?: TrustedIssuerPorts;
  /** Client ID metadata documents as clients; absent: such ids are refused. */
  readonly metadataClients?: MetadataClientPorts;
  /** The authorization endpoint's state rows, read now; absent: no authorization endpoint. */
  readonly authorizations?: {
    read(key: string): Promise<Omit<AuthorizationStateRow, 'key'> | undefined>;
    /** The rows of the requests a customer consented to in a space. */
    consentsOf(spaceId: string, customerId: string): Promise<readonly AuthorizationStateRow[]>;
    /** The latest end of the consents a storefront's private token accepted, if any. */
    consentsEndOf(spaceId: string, parentJti: string): Promise<number | undefined>;
  };
}
