import { withStreamsScope } from '../domain/scope-catalog.js';
import { STREAMS_SCOPE, streamsAudience } from '../domain/security-signals.js';
import { createStatusSlots } from '../crypto/status-slots.js';
import type { Config } from '../config/config.js';
import {
  readAuthorizationState,
  readConsentRows,
  readConsentsEnd,
} from '../projections/authorization-states.js';
import type { Logger } from '../config/logger.js';
import type { DatabaseHandle } from '../db/database.js';
import type { CommandContext } from '../commands/context.js';
import { isRecordedIssuance } from '../commands/token/recorded-issuance.js';
import { createFailureEvents } from '../commands/client-authentication/failure-events.js';
import { createAccessRefusals } from '../commands/access-refusal/record.js';
import { createAuthorizationRefusals } from '../commands/authorization/refusal-events.js';
import { ensureFirstSigningKey } from '../commands/signing-key/change-keys.js';
import { randomIds, systemClock } from '../domain/ports.js';
import { createEventStore, type AppendListener } from '#event-log/event-store.js';
import { deadlineOf, withinDeadline } from '#event-log/append-deadline.js';
import { requestIdOf } from '../domain/stored-form.js';
import { postgresSinkWrites } from '../delivery/sink-writes.js';
import { workerPeers } from '../limits/cluster-peers.js';
import { postgresPeers } from '../limits/postgres-peers.js';
import { createLimits } from '../limits/limits.js';
import { createFairQueue, perSpaceShare } from '#rate-limit/fair-queue.js';
import { createCredentialLookup } from '../projections/credential-lookup.js';
import { createRevocationLookup } from '../projections/revocation-lookup.js';
import { findIdempotentResponse } from '../projections/idempotent-responses.js';
import { rememberUsedOnce, rememberFirstUnused } from '../projections/used-once-ids.js';
import { createAccessTokenVerifier } from '../crypto/access-tokens.js';
import { loadKeyEncryptionKey, loadSecretHashKey } from '../crypto/key-files.js';
import { openKeyStore } from '../crypto/key-store.js';
import { openSpaceKeyStore } from '../crypto/space-keys.js';
import { openTokenSigner } from '../crypto/signer-from-config.js';
import { createSecretHasher } from '../crypto/secrets.js';
import { postgresInlineWrites } from '../projections/inline-writes.js';
import { metadataClientDomains, postgresIssuerWrites } from '../projections/trusted-issuers.js';
import { createMetadataDocuments } from '../commands/trusted-issuer/metadata-document.js';
import { BoundedCache } from '../crypto/bounded-cache.js';
import { trustedIssuerPorts } from './trusted-issuer-ports.js';
import { createOutboundFetcher } from '../commands/trusted-issuer/ports.js';
import { sinkTargetRules } from './sink-admin-context.js';
import { loadScopeCatalog } from './scope-catalog.js';
import { longestTokenSeconds } from './rotation-settings.js';
import { currentTrace } from '../observability/tracing.js';
import { traceDestination } from './traces.js';

/**
 * Everything the API's commands use, built from the configuration: the event store (its listeners
 * announce every append), this process's limits, the read-model lookups, the signing keys (the
 * first one made if there is none, keys stored in the clear sealed) and the secret hasher.
 */
export async function createCommandContext(
  config: Config,
  logger: Logger,
  database: DatabaseHandle,
  options: Partial<Pick<CommandContext, 'clock' | 'ids'>> & {
    readonly listeners: readonly AppendListener[];
    readonly failed: (error: unknown) => void;
  },
): Promise<CommandContext> {
  const { db } = database;
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const ids = options.ids ?? randomIds;
  const events = createEventStore(db, {
    writes: (trx) => ({
      ...postgresInlineWrites(trx),
      sinks: postgresSinkWrites(trx),
      issuers: postgresIssuerWrites(trx),
    }),
    listeners: options.listeners,
    failed: options.failed,
    // New streams group-committed, waiting in the fair queue: a space's share, a deadline each.
    batching: {
      queue: (expired) =>
        createFairQueue({
          maxQueued: config.APPEND_QUEUE_LIMIT,
          maxQueuedPerSpace: perSpaceShare(config.APPEND_QUEUE_LIMIT),
          maxWaitMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
          expired,
        }),
    },
    // Any event naming a request being handled holds the append to that request's deadline.
    deadlineOf: ({ events }) => {
      for (const event of events) {
        const deadline = deadlineOf(requestIdOf(event));
        if (deadline) return deadline;
      }
      return undefined;
    },
    // Each event joined to its request's trace, beside the log; tracing off, not even asked.
    ...(traceDestination(config) ? { traceOf: currentTrace } : {}),
  });
  const kek = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR);
  const secretHashKey = await loadSecretHashKey(config.SECRET_HASH_KEY, config.DATA_DIR);
  const signer = await openTokenSigner(config, db, kek);
  await ensureFirstSigningKey(events, kek, signer);
  const sealed = { kek, signer, refreshMs: config.SIGNING_KEY_REFRESH_MS };
  const keys = await openKeyStore(db, sealed);
  const spaceKeys = await openSpaceKeyStore(db, {
    ...sealed,
    mode: config.SPACE_SIGNING_KEYS,
    maxSpaces: config.SIGNING_KEY_CACHE_MAX_KEYS,
  });
  // The Storefront audiences' tokens and the stream management audience's are told apart at
  // the door: one verifier each, so no flow that takes a private token takes the other's.
  const verifierFor = (audiences: readonly string[]) =>
    createAccessTokenVerifier(
      keys,
      {
        issuer: config.TOKEN_ISSUER,
        audiences,
        spaceKeys: async (spaceId) =>
          (await spaceKeys.hasKeys(spaceId)) ? await spaceKeys.ring(spaceId) : undefined,
        ringOwnedSince: (spaceId) => spaceKeys.ownedSince(spaceId),
        transitionSeconds: longestTokenSeconds(config),
        recordedIssuance: (claims, digest) => isRecordedIssuance(db, claims, digest),
      },
      { clock },
    );
  // Failed client authentications and refused login tokens share one per-minute budget setting.
  const outsiders = {
    events,
    perMinute: config.FAILED_AUTH_EVENTS_PER_MINUTE,
    clock,
    ids,
    logger,
    maxKeys: config.LIMITER_MAX_KEYS,
  };
  const seenMetadata = new BoundedCache<string, true>(config.CLIENT_METADATA_CACHE_MAX);
  // Every outbound GET of the process: a deadline each, one per URL, bounded per space.
  const fetcher = createOutboundFetcher({
    rules: sinkTargetRules(config),
    timeoutMs: config.OUTBOUND_FETCH_TIMEOUT_MS,
    maxInFlight: config.OUTBOUND_FETCH_MAX_IN_FLIGHT,
    maxInFlightPerScope: config.OUTBOUND_FETCH_MAX_IN_FLIGHT_PER_SPACE,
  });
  return {
    events,
    limits: createLimits({
      clientPerMinute: config.CLIENT_RATE_LIMIT_PER_MINUTE,
      spacePerMinute: config.SPACE_RATE_LIMIT_PER_MINUTE,
      failedAuthPerMinute: config.FAILED_AUTH_LIMIT_PER_MINUTE,
      maxKeys: config.LIMITER_MAX_KEYS,
      now,
      peers:
        config.LIMITS_SYNC === 'postgres'
          ? postgresPeers(database.pool, logger, {
              sharedKey: secretHashKey,
              maxUnits: config.SPACE_RATE_LIMIT_PER_MINUTE,
            })
          : workerPeers(),
    }),
    failures: createFailureEvents(outsiders),
    refusals: createAccessRefusals(outsiders),
    authorizationRefusals: createAuthorizationRefusals(outsiders),
    credentials: createCredentialLookup(db, {
      ttlMs: config.CREDENTIAL_CACHE_TTL_MS,
      unknownTtlMs: config.UNKNOWN_CLIENT_CACHE_TTL_MS,
      maxEntries: config.LIMITER_MAX_KEYS,
    }),
    revocations: await createRevocationLookup(db, {
      refreshMs: config.REVOCATION_REFRESH_MS,
      maxEntries: config.REVOCATION_LOOKUP_MAX_ENTRIES,
    }),
    keys,
    signer,
    spaceKeys: { store: spaceKeys, maker: signer },
    verifier: verifierFor(config.TOKEN_AUDIENCES),
    streamsVerifier: verifierFor([streamsAudience(config.TOKEN_ISSUER)]),
    hasher: createSecretHasher(secretHashKey),
    clock,
    ids,
    statusSlots: createStatusSlots(secretHashKey, config.TOKEN_STATUS_LIST),
    issuer: config.TOKEN_ISSUER,
    audiences: config.TOKEN_AUDIENCES,
    privateAudiences: [...config.TOKEN_AUDIENCES, streamsAudience(config.TOKEN_ISSUER)],
    kek,
    usedOnce: {
      // A spent id is a write, refused past the request's deadline as an append is.
      remember: (used, requestId) =>
        withinDeadline(deadlineOf(requestId), () => rememberUsedOnce(db, used)),
      rememberFirst: (used, requestId) =>
        withinDeadline(deadlineOf(requestId), () => rememberFirstUnused(db, used)),
    },
    idempotentResponses: {
      find: (spaceId, keyHash) => findIdempotentResponse(db, spaceId, keyHash),
      ttlSeconds: config.IDEMPOTENCY_KEY_TTL_SECONDS,
    },
    privateTokenTtlSeconds: config.PRIVATE_TOKEN_TTL_SECONDS,
    publicTokenTtlSeconds: config.PUBLIC_TOKEN_TTL_SECONDS,
    spaceRateLimitPerMinute: config.SPACE_RATE_LIMIT_PER_MINUTE,
    delegation: {
      maxDepth: config.DELEGATION_MAX_DEPTH,
      budget: {
        count: config.DELEGATION_BUDGET,
        windowSeconds: config.DELEGATION_BUDGET_WINDOW_SECONDS,
      },
    },
    scopeCatalog: withStreamsScope(await loadScopeCatalog(config), {
      audience: streamsAudience(config.TOKEN_ISSUER),
      scope: STREAMS_SCOPE,
    }),
    trustedIssuers: await trustedIssuerPorts(config, database, now, fetcher),
    authorizations: {
      read: (key) => readAuthorizationState(db, key),
      consentsOf: (spaceId, customerId) => readConsentRows(db, spaceId, customerId),
      consentsEndOf: (spaceId, parentJti) => readConsentsEnd(db, spaceId, parentJti),
    },
    // Client ID metadata documents: the domains read as they stand, documents and first uses bounded.
    metadataClients: {
      domain: async (spaceId, domain) => (await metadataClientDomains(db, spaceId, domain))[0],
      documents: createMetadataDocuments({
        fetcher,
        timeoutMs: config.OUTBOUND_FETCH_TIMEOUT_MS,
        maxEntries: config.CLIENT_METADATA_CACHE_MAX,
        maxAgeSeconds: config.CLIENT_METADATA_CACHE_MAX_SECONDS,
        now,
      }),
      seen: {
        has: (key) => seenMetadata.get(key) !== undefined,
        add: (key) => seenMetadata.set(key, true),
      },
    },
  };
}
