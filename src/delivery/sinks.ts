import { sql, type Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import { openValue, sealValue, type KeyEncryptionKey } from '../crypto/key-encryption.js';
import { sinkTargetSchema, type SinkTarget } from '../domain/events.js';
import type { SinkState } from '../domain/sink/decide.js';
import { deliveryUrl, isSignalStream, keepsSecret } from '../domain/sink/targets.js';
import { LOG_TIP } from './cursor.js';

/** A sink as the deliverer needs it: the row, and a webhook's secret opened. */
export interface SinkDefinition extends SinkState {
  /** A webhook's `whsec_…`; never logged, never in an event. */
  readonly secret?: string;
  /** A webhook's whole URL (sealed path opened); never logged. */
  readonly url?: string;
  /** A syslog sink's CA (PEM) for RFC 5425 TLS; the system's roots when absent. */
  readonly ca?: string;
  /** Why it is paused: `failing` (probed until it answers) or `admin` (waits for an admin). */
  readonly pauseReason?: string | null;
}

/** The binding a webhook secret is sealed under: a sealed secret moved to another row won't open. */
const binding = (sinkId: string) => `audit-sink:${sinkId}`;

/** Seals a webhook secret for its row. */
export const sealSinkSecret = (kek: KeyEncryptionKey, sinkId: string, secret: string): string =>
  JSON.stringify(sealValue(kek, binding(sinkId), secret));

/** The binding of a webhook's sealed path and query: another binding than its secret's. */
const pathBinding = (sinkId: string) => `audit-sink-path:${sinkId}`;

/** Seals a webhook's path and query for its row, as its secret is sealed. */
export const sealSinkPath = (kek: KeyEncryptionKey, sinkId: string, path: string): string =>
  JSON.stringify(sealValue(kek, pathBinding(sinkId), path));

const rowSchema = z.object({
  sink_id: z.string(),
  space_id: z.string().nullable(),
  name: z.string(),
  target: sinkTargetSchema,
  sealed_secret: z.unknown().nullable(),
  sealed_path: z.unknown().nullable().optional(),
  paused: z.boolean(),
  pause_reason: z.string().nullable().optional(),
  receiver_client_id: z.string().nullable().optional(),
  verification_requested_at: z.date().nullable().optional(),
});

const SINK_COLUMNS = [
  'sink_id',
  'space_id',
  'name',
  'target',
  'sealed_secret',
  'sealed_path',
  'paused',
  'pause_reason',
  'receiver_client_id',
] as const;

/** The sink state the deciders take, from its row (undefined when there is none). */
export async function readSink(
  db: Kysely<Database>,
  sinkId: string,
  options: { readonly forUpdate?: boolean } = {},
): Promise<SinkState | undefined> {
  const row = await db
    .selectFrom('audit_sinks')
    .select([...SINK_COLUMNS, 'deleted_at', 'verification_requested_at'])
    .where('sink_id', '=', sinkId)
    .$if(options.forUpdate === true, (query) => query.forUpdate())
    .executeTakeFirst();
  if (!row) return undefined;
  const parsed = rowSchema.parse(row);
  return {
    sinkId: parsed.sink_id,
    spaceId: parsed.space_id,
    name: parsed.name,
    target: parsed.target,
    paused: parsed.paused,
    pauseReason: parsed.pause_reason ?? null,
    ...(row.deleted_at === null ? {} : { deleted: true }),
    ...(parsed.receiver_client_id ? { receiver: parsed.receiver_client_id } : {}),
    ...(parsed.verification_requested_at
      ? { verificationRequestedAt: parsed.verification_requested_at.getTime() }
      : {}),
  };
}

/** Every sink with its secret opened; one sealed under another KEK fails and pauses. */
export async function loadSinks(
  db: Kysely<Database>,
  kek: KeyEncryptionKey,
): Promise<SinkDefinition[]> {
  const rows = await db
    .selectFrom('audit_sinks')
    .select(SINK_COLUMNS)
    .where('deleted_at', 'is', null)
    .orderBy('sink_id')
    .execute();
  return rows.map((raw) => definitionOf(kek, raw));
}

/** One sink with its secret opened, or undefined when there is none (deleted ones included). */
export async function loadSink(
  db: Kysely<Database>,
  kek: KeyEncryptionKey,
  sinkId: string,
): Promise<SinkDefinition | undefined> {
  const row = await db
    .selectFrom('audit_sinks')
    .select(SINK_COLUMNS)
    .where('sink_id', '=', sinkId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row && definitionOf(kek, row);
}

function definitionOf(kek: KeyEncryptionKey, raw: unknown): SinkDefinition {
  const row = rowSchema.parse(raw);
  const sealed = (value: unknown, bindingOf: (sinkId: string) => string) =>
    value === null || value === undefined
      ? undefined
      : openValue(kek, bindingOf(row.sink_id), value);
  const secret = sealed(row.sealed_secret, binding);
  const url = deliveryUrl(row.target, sealed(row.sealed_path, pathBinding));
  return {
    sinkId: row.sink_id,
    spaceId: row.space_id,
    name: row.name,
    target: row.target,
    paused: row.paused,
    pauseReason: row.pause_reason ?? null,
    ...(row.receiver_client_id ? { receiver: row.receiver_client_id } : {}),
    ...(secret === undefined ? {} : { secret }),
    ...(url === undefined ? {} : { url }),
  };
}

/** Writes a sink's row and cursor row in the caller's transaction, with its event. */
export async function writeSink(
  db: Kysely<Database>,
  sink: {
    readonly sinkId: string;
    readonly spaceId: string | null;
    readonly name: string;
    readonly target: SinkTarget;
    /** A new secret sealed; null: none any more (a receiver's stream without a header). */
    readonly sealedSecret?: string | null;
    /** The client that made a stream (SSF 1.0 §8); only on creation. */
    readonly receiver?: string;
    /** A webhook's path and query, sealed ({@link sealSinkPath}); kept when not given. */
    readonly sealedPath?: string;
  },
): Promise<void> {
  await db
    .insertInto('audit_sinks')
    .values({
      sink_id: sink.sinkId,
      space_id: sink.spaceId,
      name: sink.name,
      target: JSON.stringify(sink.target),
      sealed_secret: sink.sealedSecret ?? null,
      sealed_path: sink.sealedPath ?? null,
      receiver_client_id: sink.receiver ?? null,
      pause_reason: null,
      paused_at: null,
    })
    .onConflict((conflict) =>
      conflict.column('sink_id').doUpdateSet({
        name: sink.name,
        target: JSON.stringify(sink.target),
        // A new secret replaces the old; a syslog sink keeps none.
        ...(sink.sealedSecret !== undefined
          ? { sealed_secret: sink.sealedSecret }
          : !keepsSecret(sink.target)
            ? { sealed_secret: null }
            : {}),
        // A new path replaces the old; a target recorded whole (or syslog) keeps none.
        ...(sink.sealedPath !== undefined
          ? { sealed_path: sink.sealedPath }
          : sink.target.kind !== 'webhook' || sink.target.path_digest === undefined
            ? { sealed_path: null }
            : {}),
      }),
    )
    .execute();
  await db
    .insertInto('audit_sink_cursors')
    .values({
      sink_id: sink.sinkId,
      // A new signal stream starts at the log's end: no receiver added today is told of
      // yesterday's tokens (an audit sink delivers the whole trail).
      ...(isSignalStream(sink.target)
        ? {
            transaction_id: sql<string>`COALESCE((SELECT transaction_id FROM (${LOG_TIP}) t), '0'::xid8)`,
            global_position: sql<number>`COALESCE((SELECT global_position FROM (${LOG_TIP}) t), 0)`,
          }
        : {}),
      delivered_recorded_at: null,
      delivered_at: null,
      last_error: null,
      last_error_at: null,
    })
    .onConflict((conflict) => conflict.column('sink_id').doNothing())
    .execute();
}

/** Marks a sink paused or running, in the transaction of the event that says so. */
export async function writeSinkPaused(
  db: Kysely<Database>,
  sinkId: string,
  paused: false | { readonly reason: string },
): Promise<void> {
  await db
    .updateTable('audit_sinks')
    .set(
      paused
        ? { paused: true, pause_reason: paused.reason, paused_at: sql<Date>`now()` }
        : { paused: false, pause_reason: null, paused_at: null },
    )
    .where('sink_id', '=', sinkId)
    .execute();
  if (!paused) {
    // Resumed: its retries start over.
    await db
      .updateTable('audit_sink_cursors')
      .set({ attempts: 0 })
      .where('sink_id', '=', sinkId)
      .execute();
  }
}
