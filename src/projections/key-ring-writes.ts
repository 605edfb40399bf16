import { sql, type Transaction } from 'kysely';
import { ADVISORY_LOCK } from '../db/advisory-locks.js';
import type { Database } from '../db/schema.js';
import type { KeyRing } from '../domain/signing-key/state.js';
import {
  loadKeyRing,
  loadStoredPrivateKeys,
  ringOfKey,
  ringsDueBy,
  writeKeyRing,
  writeSealedPrivateKeys,
} from './signing-keys.js';

/** A new key's material, which no event carries: sealed, or (PKCS#11) which token holds it. */
export interface KeyMaterial {
  readonly kid: string;
  readonly privateJwk: object;
  readonly publicJwk: object;
}

/** A signing-key change's reads and writes in its transaction, as a port. */
export interface KeyRingWrites {
  /** Holds the one key-ring lock until the transaction ends: ring decisions never race. */
  lock(): Promise<void>;
  /** A ring as its rows hold it: a space's own, or the shared one (null). */
  load(spaceId: string | null): Promise<KeyRing>;
  /** The ring `evolve` made of `before`, a new key with its material. */
  write(
    before: KeyRing,
    after: KeyRing,
    material: KeyMaterial | undefined,
    spaceId: string | null,
  ): Promise<void>;
  ringOfKey(kid: string): Promise<{ readonly spaceId: string | null } | undefined>;
  /** Whether an admin ended the space's switch-over (`ended_switch_overs`); and ends it. */
  switchOverEnded(spaceId: string): Promise<boolean>;
  endSwitchOver(spaceId: string, at: Date): Promise<void>;
  /** The rings a scheduled rotation may be due in (see `ringsDueBy`). */
  ringsDueBy(activatedBy: Date, now: Date): Promise<ReadonlyArray<string | null>>;
  storedPrivateKeys(): Promise<ReadonlyArray<{ readonly kid: string; readonly stored: unknown }>>;
  /** Replaces keys' stored private halves with the sealed ones given. */
  writeSealed(
    sealed: ReadonlyArray<{ readonly kid: string; readonly sealed: object }>,
  ): Promise<void>;
}

/** The key ring's reads and writes through one Postgres transaction. */
export function postgresKeyRingWrites(trx: Transaction<Database>): KeyRingWrites {
  return {
    lock: async () => {
      await sql`SELECT pg_advisory_xact_lock(${ADVISORY_LOCK.signingKeys})`.execute(trx);
    },
    load: (spaceId) => loadKeyRing(trx, spaceId),
    write: (before, after, material, spaceId) =>
      writeKeyRing(trx, before, after, material, spaceId),
    ringOfKey: (kid) => ringOfKey(trx, kid),
    switchOverEnded: async (spaceId) =>
      (await trx
        .selectFrom('ended_switch_overs')
        .select('space_id')
        .where('space_id', '=', spaceId)
        .executeTakeFirst()) !== undefined,
    endSwitchOver: async (spaceId, at) => {
      await trx
        .insertInto('ended_switch_overs')
        .values({ space_id: spaceId, ended_at: at })
        .execute();
    },
    ringsDueBy: (activatedBy, now) => ringsDueBy(trx, activatedBy, now),
    storedPrivateKeys: () => loadStoredPrivateKeys(trx),
    writeSealed: (sealed) => writeSealedPrivateKeys(trx, sealed),
  };
}
