import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { KeyRing } from '../domain/signing-key/state.js';

/** A key ring from `signing_keys`, oldest first; `spaceId` null is the shared ring. */
export async function loadKeyRing(
  db: Kysely<Database>,
  spaceId: string | null = null,
): Promise<KeyRing> {
  const rows = await db
    .selectFrom('signing_keys')
    .select(['kid', 'alg', 'activates_at', 'retired_at'])
    .where((eb) => (spaceId === null ? eb('space_id', 'is', null) : eb('space_id', '=', spaceId)))
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

/** Writes the ring `evolve` produced: new keys with their material, changed retirements. */
export async function writeKeyRing(
  trx: Transaction<Database>,
  before: KeyRing,
  after: KeyRing,
  material:
    { readonly kid: string; readonly privateJwk: object; readonly publicJwk: object } | undefined,
  spaceId: string | null = null,
): Promise<void> {
  const old = new Map(before.map((key) => [key.kid, key]));
  for (const key of after) {
    const was = old.get(key.kid);
    const retiredAt = key.retiredAt === null ? null : new Date(key.retiredAt);
    if (!was) {
      if (key.kid !== material?.kid) throw new Error(`no key material for new key ${key.kid}`);
      await trx
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          alg: key.alg,
          private_jwk: JSON.stringify(material.privateJwk),
          public_jwk: JSON.stringify(material.publicJwk),
          activates_at: new Date(key.activatesAt),
          retired_at: retiredAt,
          space_id: spaceId,
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

/** The ring a key belongs to: a space's own, null for the shared one; undefined when unknown. */
export async function ringOfKey(
  db: Kysely<Database>,
  kid: string,
): Promise<{ readonly spaceId: string | null } | undefined> {
  const row = await db
    .selectFrom('signing_keys')
    .select('space_id')
    .where('kid', '=', kid)
    .executeTakeFirst();
  return row && { spaceId: row.space_id };
}

/** Rings a rotation may be due in: shared and spaces' whose signer began by `activatedBy`. */
export async function ringsDueBy(
  db: Kysely<Database>,
  activatedBy: Date,
  now: Date,
): Promise<ReadonlyArray<string | null>> {
  const rows = await db
    .selectFrom('signing_keys')
    .select('space_id')
    .where('retired_at', 'is', null)
    .groupBy('space_id')
    .having((eb) => eb.fn.max('activates_at'), '<=', activatedBy)
    .having((eb) => eb.fn.max('activates_at'), '<=', now)
    .execute();
  return rows.map((row) => row.space_id);
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
