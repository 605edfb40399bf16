import { sql, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { lockSpaceFor } from '../db/advisory-locks.js';
import type { SinkState } from '../domain/sink/decide.js';
import { cursorOf } from './cursor.js';
import { readSink, writeSink, writeSinkPaused } from './sinks.js';
import { sinkStatuses, type SinkStatus } from './status.js';

/** A sink change's reads and writes in its event's transaction, as a port. */
export interface SinkWrites {
  /** The sink's state, its row locked until the transaction ends. */
  lockedSink(sinkId: string): Promise<SinkState | undefined>;
  /** Holds a space's sink-limit lock: creates in one space, one at a time. */
  lockSpace(spaceId: string): Promise<void>;
  /** A space's sinks that count against its limit (deleted ones do not); a receiver's alone. */
  count(spaceId: string, receiver?: string): Promise<number>;
  /** When its receiver asked for a verification now (one a minute). */
  verificationRequested(sinkId: string, at: Date): Promise<void>;
  /** The last verification a receiver asked for on any stream it made, deleted ones too (ms). */
  lastVerification(spaceId: string, receiver: string): Promise<number | undefined>;
  /** The sink's failed attempts and last failure (a pause names them). */
  cursor(
    sinkId: string,
  ): Promise<{ readonly attempts: number; readonly last_error: string | null } | undefined>;
  /** The sink's status as it stands in this transaction. */
  status(sinkId: string): Promise<SinkStatus | undefined>;
  /** Its row (created or changed) with its cursor row: see `writeSink`. */
  write(sink: Parameters<typeof writeSink>[1]): Promise<void>;
  paused(sinkId: string, paused: false | { readonly reason: string }): Promise<void>;
  /** Marks it deleted: the row stays (its id answers as before), its secret and path dropped. */
  deleted(sinkId: string): Promise<void>;
}

/** The sinks' reads and writes through one Postgres transaction. */
export function postgresSinkWrites(trx: Transaction<Database>): SinkWrites {
  return {
    lockedSink: (sinkId) => readSink(trx, sinkId, { forUpdate: true }),
    lockSpace: (spaceId) => lockSpaceFor(trx, 'sinkLimit', spaceId),
    count: async (spaceId, receiver) => {
      const row = await trx
        .selectFrom('audit_sinks')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('space_id', '=', spaceId)
        .where('deleted_at', 'is', null)
        .$if(receiver !== undefined, (query) => query.where('receiver_client_id', '=', receiver!))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    lastVerification: async (spaceId, receiver) => {
      const row = await trx
        .selectFrom('audit_sinks')
        .select((eb) => eb.fn.max('verification_requested_at').as('at'))
        .where('space_id', '=', spaceId)
        .where('receiver_client_id', '=', receiver)
        .executeTakeFirst();
      return row?.at ? new Date(row.at).getTime() : undefined;
    },
    verificationRequested: async (sinkId, at) => {
      await trx
        .updateTable('audit_sinks')
        .set({ verification_requested_at: at })
        .where('sink_id', '=', sinkId)
        .execute();
    },
    cursor: (sinkId) => cursorOf(trx, sinkId),
    status: async (sinkId) => (await sinkStatuses(trx, { sinkId }))[0],
    write: (sink) => writeSink(trx, sink),
    paused: (sinkId, paused) => writeSinkPaused(trx, sinkId, paused),
    deleted: async (sinkId) => {
      await trx
        .updateTable('audit_sinks')
        .set({ deleted_at: sql<Date>`now()`, sealed_secret: null, sealed_path: null })
        .where('sink_id', '=', sinkId)
        .execute();
    },
  };
}

/** A store's writes that include the sinks'. */
export interface WithSinkWrites {
  readonly sinks: SinkWrites;
}
