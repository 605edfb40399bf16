import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { uuidv7 } from '../domain/ports.js';
import { domainEvent, streams, SYSTEM_SPACE, type EventData } from '../domain/events.js';
import { appendToStream } from '../event-store/append-to-stream.js';

/** The algorithm of every access token. Ed25519: small, fast, and deterministic. */
export const ACCESS_TOKEN_ALG = 'EdDSA';

/** A key that can sign, and its id. */
export interface SigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
}

/** Keys to sign with and to publish. */
export interface KeyStore {
  /** The newest key already active; every token is signed with it. */
  current(): SigningKey;
  /** Public key for `kid`, if published. */
  publicKey(kid: string): KeyObject | undefined;
  /** The JWKS document served at /.well-known/jwks.json: every published key, active or not yet. */
  jwks(): { readonly keys: readonly JWK[] };
  /** Re-reads keys from the database (another replica may have rotated). */
  refresh(): Promise<void>;
  /**
   * For a kid we do not know: one shared reload, at most once per cooldown, so a flood of made-up
   * kids costs at most one query per cooldown instead of one each.
   */
  refreshSoon(): Promise<void>;
  /** Stops the periodic refresh. */
  close(): void;
}

interface LoadedKey extends SigningKey {
  readonly publicKey: KeyObject;
  readonly publicJwk: JWK;
  readonly activatesAt: number;
}

// Serialises "is there a key? if not, make one" across processes starting together.
const FIRST_KEY_LOCK = 7_214_903_313;

/**
 * Loads the published signing keys, generating the first one if there is none, and re-reads them
 * every `refreshMs` so a rotation done anywhere reaches every replica. Keys live in the database,
 * not on a replica's disk, so all replicas sign with and publish the same set.
 */
export async function openKeyStore(
  db: Kysely<Database>,
  options: {
    readonly refreshMs?: number;
    readonly now?: () => number;
    readonly refreshCooldownMs?: number;
  } = {},
): Promise<KeyStore> {
  const now = options.now ?? Date.now;
  let keys = await loadKeys(db);
  if (keys.length === 0) {
    await db.transaction().execute(async (trx) => {
      await sql`SELECT pg_advisory_xact_lock(${FIRST_KEY_LOCK})`.execute(trx);
      if ((await loadKeys(trx)).length === 0) {
        await insertKey(trx, new Date(), 'first_key', SERVICE_ACTOR);
      }
    });
    keys = await loadKeys(db);
  }
  const state = { keys, fingerprint: await keysFingerprint(db) };
  const cooldownMs = options.refreshCooldownMs ?? 1000;
  let refreshing: Promise<void> | undefined;
  let lastRefreshAt = now();
  const timer = options.refreshMs
    ? setInterval(() => void store.refresh().catch(() => undefined), options.refreshMs)
    : undefined;
  timer?.unref();
  const store: KeyStore = {
    current() {
      const at = now();
      // Keys are newest first; the first already active signs. The oldest is the last resort.
      return state.keys.find((key) => key.activatesAt <= at) ?? state.keys.at(-1)!;
    },
    publicKey: (kid) => state.keys.find((key) => key.kid === kid)?.publicKey,
    jwks: () => ({ keys: state.keys.map((key) => key.publicJwk) }),
    refresh() {
      refreshing ??= (async () => {
        // One small query per refresh; keys are re-imported only when something changed.
        const fingerprint = await keysFingerprint(db);
        lastRefreshAt = now();
        if (fingerprint === state.fingerprint) return;
        const fresh = await loadKeys(db);
        if (fresh.length > 0) state.keys = fresh;
        state.fingerprint = fingerprint;
      })().finally(() => (refreshing = undefined));
      return refreshing;
    },
    async refreshSoon() {
      if (refreshing) return refreshing;
      if (now() - lastRefreshAt < cooldownMs) return;
      return store.refresh();
    },
    close: () => clearInterval(timer),
  };
  return store;
}

/**
 * Rotation, step one of two in a single call: add a key that becomes active `activateInSeconds`
 * from now (long enough for every replica and every verifier's JWKS cache to learn it), and mark
 * the keys it replaces to leave the JWKS `retireAfterSeconds` after that (the longest token
 * lifetime, so every token they signed has expired). Returns the new key id.
 */
export async function rotateSigningKey(
  db: Kysely<Database>,
  options: {
    readonly activateInSeconds: number;
    readonly retireAfterSeconds: number;
    readonly actor?: KeyActor;
  },
): Promise<{ readonly kid: string; readonly activatesAt: Date; readonly retiresOthersAt: Date }> {
  const actor = options.actor ?? SERVICE_ACTOR;
  const activatesAt = new Date(Date.now() + options.activateInSeconds * 1000);
  const retiresOthersAt = new Date(activatesAt.getTime() + options.retireAfterSeconds * 1000);
  return db.transaction().execute(async (trx) => {
    const replaced = await trx
      .updateTable('signing_keys')
      .set({ retired_at: retiresOthersAt })
      .where('retired_at', 'is', null)
      .returning('kid')
      .execute();
    for (const { kid } of replaced) {
      await recordKeyEvent(trx, kid, 'signing-key-retired', actor, {
        kid,
        retired_at: retiresOthersAt.toISOString(),
        reason: 'rotated',
      });
    }
    const kid = await insertKey(trx, activatesAt, 'rotation', actor);
    return { kid, activatesAt, retiresOthersAt };
  });
}

/**
 * Withdraws a key at once (a compromise): it leaves the JWKS and stops verifying on every replica
 * within SIGNING_KEY_REFRESH_MS. If no other key is active, a new one is generated that signs at
 * once, so issuance never falls back to the withdrawn key. Both changes are events.
 */
export async function retireSigningKey(
  db: Kysely<Database>,
  kid: string,
  actor: KeyActor,
): Promise<{ readonly retired: boolean; readonly replacement?: string }> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${FIRST_KEY_LOCK})`.execute(trx);
    const retiredAt = new Date();
    const retired = await trx
      .updateTable('signing_keys')
      .set({ retired_at: retiredAt })
      .where('kid', '=', kid)
      .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredAt)]))
      .returning('kid')
      .executeTakeFirst();
    if (!retired) return { retired: false };
    await recordKeyEvent(trx, kid, 'signing-key-retired', actor, {
      kid,
      retired_at: retiredAt.toISOString(),
      reason: 'compromised',
    });
    const stillActive = await trx
      .selectFrom('signing_keys')
      .select('kid')
      .where('retired_at', 'is', null)
      .where('activates_at', '<=', retiredAt)
      .executeTakeFirst();
    if (stillActive) return { retired: true };
    const replacement = await insertKey(trx, retiredAt, 'replaces_retired', actor);
    return { retired: true, replacement };
  });
}

/** Who changed the keys, for the key events. */
export interface KeyActor {
  readonly actor: string;
  readonly origin: string;
}

const SERVICE_ACTOR: KeyActor = { actor: 'service', origin: 'local' };

async function recordKeyEvent<Type extends 'signing-key-generated' | 'signing-key-retired'>(
  db: Kysely<Database>,
  kid: string,
  type: Type,
  actor: KeyActor,
  data: EventData<Type>,
): Promise<void> {
  const eventId = uuidv7();
  // A stream per key event: a key's generation and retirement may be recorded by different
  // processes, and neither needs to know the other's position.
  await appendToStream(db, {
    spaceId: SYSTEM_SPACE,
    streamId: `${streams.signingKey(kid)}-${eventId}`,
    expectedVersion: 'no_stream',
    events: [
      domainEvent(eventId, type, data, {
        actor: actor.actor,
        request_id: eventId,
        client_ip: actor.origin,
        user_agent: null,
      }),
    ],
  });
}

/** A cheap summary of the key table: changes whenever a key is added, activated or retired. */
async function keysFingerprint(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ fingerprint: string | null }>`
    SELECT string_agg(kid || '/' || activates_at::text || '/' || coalesce(retired_at::text, ''),
                      ',' ORDER BY kid) AS fingerprint
    FROM signing_keys
    WHERE retired_at IS NULL OR retired_at > now()`.execute(db);
  return rows[0]?.fingerprint ?? '';
}

async function loadKeys(db: Kysely<Database>): Promise<LoadedKey[]> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'private_jwk', 'public_jwk', 'activates_at'])
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', sql<Date>`now()`)]))
    .orderBy('activates_at', 'desc')
    .orderBy('kid')
    .execute();
  return rows.map((row) => ({
    kid: row.kid,
    privateKey: createPrivateKey({ key: row.private_jwk as never, format: 'jwk' }),
    publicKey: createPublicKey({ key: row.public_jwk as never, format: 'jwk' }),
    publicJwk: row.public_jwk as JWK,
    activatesAt: row.activates_at.getTime(),
  }));
}

async function insertKey(
  db: Kysely<Database>,
  activatesAt: Date,
  reason: EventData<'signing-key-generated'>['reason'],
  actor: KeyActor,
): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk);
  await db
    .insertInto('signing_keys')
    .values({
      kid,
      alg: ACCESS_TOKEN_ALG,
      private_jwk: JSON.stringify(privateKey.export({ format: 'jwk' })),
      public_jwk: JSON.stringify({ ...publicJwk, kid, alg: ACCESS_TOKEN_ALG, use: 'sig' }),
      activates_at: activatesAt,
      retired_at: null,
    })
    .execute();
  await recordKeyEvent(db, kid, 'signing-key-generated', actor, {
    kid,
    alg: ACCESS_TOKEN_ALG,
    activates_at: activatesAt.toISOString(),
    reason,
  });
  return kid;
}
