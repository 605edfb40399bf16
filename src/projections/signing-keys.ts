import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { KeyRing } from '../domain/signing-key/state.js';

/** The key ring as the `signing_keys` rows hold it: every key, oldest first. */
export async function loadKeyRing(db: Kysely<Database>): Promise<KeyRing> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'alg', 'activates_at', 'retired_at'])
    .orderBy('activates_at')
    .orderBy('kid')
    .execute();
  return rows.map((row) => ({
    kid: row.kid,
    alg: row.alg,
    activatesAt: row.activates_at.getTime(),
    retiredAt: row.retired_at?.getTime() ?? null,
  }));
}

/**
 * Writes the key ring `evolve` produced, in the append's transaction: a key that is new gets its
 * row with its material (which no event carries), a key whose retirement changed gets it.
 */
export async function writeKeyRing(
  trx: Transaction<Database>,
  before: KeyRing,
  after: KeyRing,
  material: { readonly kid: string; readonly privateJwk: object; readonly publicJwk: object },
): Promise<void> {
  const old = new Map(before.map((key) => [key.kid, key]));
  for (const key of after) {
    const was = old.get(key.kid);
    const retiredAt = key.retiredAt === null ? null : new Date(key.retiredAt);
    if (!was) {
      if (key.kid !== material.kid) throw new Error(`no key material for new key ${key.kid}`);
      await trx
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          private_jwk: JSON.stringify(material.privateJwk),
          public_jwk: JSON.stringify(material.publicJwk),
          activates_at: new Date(key.activatesAt),
          retired_at: retiredAt,
        })
        .execute();
    } else if (was.retiredAt !== key.retiredAt) {
      await trx
        .updateTable('signing_keys')
        .set({ retired_at: retiredAt })
        .where('kid', '=', key.kid)
        .execute();
    }
  }
}

/** Every key's stored private half (sealed, or in the clear if written before sealing). */
export async function loadStoredPrivateKeys(
  db: Kysely<Database>,
): Promise<ReadonlyArray<{ readonly kid: string; readonly stored: unknown }>> {
  const rows = await db.selectFrom('signing_keys').select(['kid', 'private_jwk']).execute();
  return rows.map((row) => ({ kid: row.kid, stored: row.private_jwk }));
}

/** Replaces keys' stored private halves with the sealed ones given. */
export async function writeSealedPrivateKeys(
  trx: Transaction<Database>,
  sealed: ReadonlyArray<{ readonly kid: string; readonly sealed: object }>,
): Promise<void> {
  for (const key of sealed) {
    await trx
      .updateTable('signing_keys')
      .set({ private_jwk: JSON.stringify(key.sealed) })
      .where('kid', '=', key.kid)
      .execute();
  }
}
