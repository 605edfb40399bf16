import type { Kysely } from 'kysely';
import { ConfigError } from '../../config/config.js';
import type { Database } from '../../db/schema.js';
import {
  startWitnessing as startWitnessClient,
  type WitnessLedger,
} from '#audit-log/witness/client.js';
import {
  parseWitnesses as parseWitnessList,
  WitnessListError,
  type WitnessEndpoint,
} from '#audit-log/witness/endpoints.js';
import { findTreeHead } from '../prove/tree-heads.js';
import { proveConsistency } from '../prove/tree-proofs.js';

/** AUDIT_WITNESSES: `<add-checkpoint URL> <verifier key>`, comma-separated. */
export function parseWitnesses(setting: string | undefined): WitnessEndpoint[] {
  try {
    return parseWitnessList(setting, 'AUDIT_WITNESSES');
  } catch (error) {
    if (error instanceof WitnessListError) throw new ConfigError([error.problem]);
    throw error;
  }
}

/** AUDIT_WITNESS_QUORUM, checked against the witnesses: 0 to their number, all of them by default. */
export function witnessQuorum(setting: string | undefined, witnesses: number): number {
  if (setting === undefined) return witnesses;
  const quorum = Number(setting);
  if (!/^[0-9]+$/.test(setting) || quorum > witnesses) {
    throw new ConfigError([
      `AUDIT_WITNESS_QUORUM: expected a whole number from 0 to the ${witnesses} witnesses of AUDIT_WITNESSES`,
    ]);
  }
  return quorum;
}

/** Sends signed tree heads to the witnesses, keeping their cosignatures in merkle_cosignatures. */
export function startWitnessing(
  db: Kysely<Database>,
  witnesses: readonly WitnessEndpoint[],
  options: Parameters<typeof startWitnessClient>[2],
): ReturnType<typeof startWitnessClient> {
  return startWitnessClient(postgresWitnessLedger(db), witnesses, options);
}

/** What the witness client reads and keeps, in merkle_checkpoints and merkle_cosignatures. */
function postgresWitnessLedger(db: Kysely<Database>): WitnessLedger {
  return {
    async cosignedSize(treeId, witness) {
      const row = await db
        .selectFrom('merkle_cosignatures')
        .select((eb) => eb.fn.max('tree_size').as('size'))
        .where('space_id', '=', treeId)
        .where('witness', '=', witness)
        .executeTakeFirst();
      return Number(row?.size ?? 0);
    },
    signedHead: async (treeId, size) => (await findTreeHead(db, treeId, { size })) !== undefined,
    proveConsistency: (treeId, from, to) => proveConsistency(db, treeId, from, to),
    async keepCosignature(head, witness, line) {
      await db
        .insertInto('merkle_cosignatures')
        .values({ space_id: head.treeId, tree_size: head.size, witness, line })
        .onConflict((conflict) => conflict.doNothing())
        .execute();
    },
  };
}
