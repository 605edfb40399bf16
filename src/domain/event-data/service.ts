import { z } from 'zod';
import { declareEvent, fieldsOf } from './declaration.js';

const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

/** A signing key made, for the shared ring or a space's own. */
export const signingKeyGeneratedSchema = z.object({
  kid: z.string(),
  alg: z.string(),
  activates_at: z.iso.datetime(),
  reason: z.enum(['first_key', 'rotation', 'replaces_retired', 'space_keys_enabled']),
  /** The space whose own ring the key joins (its tokens only); absent for the shared ring. */
  space_id: z.string().optional(),
});

/** A signing key withdrawn or rotated out. */
export const signingKeyRetiredSchema = z.object({
  kid: z.string(),
  /** When it leaves the JWKS: now for a withdrawal, later for a rotation's predecessor. */
  retired_at: z.iso.datetime(),
  reason: z.enum(['compromised', 'rotated']),
  /** The space whose own ring held the key; absent for the shared ring. */
  space_id: z.string().optional(),
});

/** An admin ended a space's switch-over to its own keys: no shared-ring token speaks for it now. */
export const spaceSwitchOverEndedSchema = z.object({ space_id: z.string() });

/**
 * Signing keys' private halves sealed anew under a key-encryption key: rows written in the clear
 * before sealing existed (`sealed`), or moved to a new KEK (`rewrapped`). Never a key.
 */
export const signingKeysResealedSchema = z.object({
  kids: z.array(z.string()).min(1),
  kek: z.string(),
  reason: z.enum(['sealed', 'rewrapped']),
});

/** Somebody read the audit log: what they asked for and how much they got. */
export const auditLogReadSchema = z.object({
  /** `export-started` is recorded before an export's first byte, `export` when it ended. */
  kind: z.enum([
    'events',
    'export-started',
    'export',
    'checkpoints',
    'stream-started',
    'stream',
    'tree-head',
    'inclusion-proof',
    'consistency-proof',
  ]),
  /** The query as sent (filters, range, cursor). */
  query: z.record(z.string(), z.string()),
  rows_returned: z.number().int().min(0),
  /** False when the reader went away before an export was complete. */
  complete: z.boolean(),
});

/** One file of an archive: a space's events of the partition, in its chain's export format. */
export const archiveFileSchema = z.object({
  space_id: z.string(),
  /** Relative to the archive folder: `<partition>/<space>.ndjson.gz`. */
  file: z.string(),
  sha256,
  events: z.number().int().min(0),
  first_sequence: z.number().int().min(1).nullable(),
  last_sequence: z.number().int().min(1).nullable(),
});

/**
 * A whole partition of the log left the database for files that were written and verified first;
 * its disk was given back (the partition dropped). Names the range, every file and its SHA-256.
 */
export const eventsArchivedSchema = z.object({
  partition: z.string(),
  /** `-infinity` for the first partition (the history before partitioning). */
  starts_at: z.string(),
  ends_at: z.iso.datetime(),
  events: z.number().int().min(0),
  files: z.array(archiveFileSchema),
  /** SHA-256 of the partition's manifest.json, which lists the same files. */
  manifest_sha256: sha256,
});

/** The service's own events: its signing keys, reads of the audit log, archived partitions. */
export const SERVICE_EVENTS = {
  'signing-key-generated': declareEvent(signingKeyGeneratedSchema, {
    audit: ['kid', 'alg', 'activates_at', 'reason'],
    example: ({ clientId, now }) => ({
      kid: `kid-${clientId}`,
      alg: 'EdDSA',
      activates_at: now.toISOString(),
      reason: 'rotation',
    }),
  }),
  'signing-key-retired': declareEvent(signingKeyRetiredSchema, {
    audit: ['kid', 'retired_at', 'reason'],
    example: ({ clientId, now }) => ({
      kid: `kid-${clientId}`,
      retired_at: now.toISOString(),
      reason: 'compromised',
    }),
  }),
  'space-switch-over-ended': declareEvent(spaceSwitchOverEndedSchema, {
    audit: ['space_id'],
    example: ({ clientId }) => ({ space_id: clientId }),
  }),
  'signing-keys-resealed': declareEvent(signingKeysResealedSchema, {
    audit: fieldsOf(signingKeysResealedSchema),
    example: ({ clientId }) => ({
      kids: [`kid-${clientId}`],
      kek: '0123456789abcdef',
      reason: 'rewrapped',
    }),
  }),
  'audit-log-read': declareEvent(auditLogReadSchema, {
    audit: fieldsOf(auditLogReadSchema),
    example: ({ clientId }) => ({
      kind: 'events',
      query: { client_id: clientId },
      rows_returned: 3,
      complete: true,
    }),
  }),
  'events-archived': declareEvent(eventsArchivedSchema, {
    audit: fieldsOf(eventsArchivedSchema),
    example: ({ clientId }) => ({
      partition: 'events_20261101t000000',
      starts_at: '2026-11-01T00:00:00.000Z',
      ends_at: '2026-12-01T00:00:00.000Z',
      events: 3,
      files: [
        {
          space_id: clientId,
          file: `events_20261101t000000/${clientId}.ndjson.gz`,
          sha256: 'a'.repeat(64),
          events: 3,
          first_sequence: 1,
          last_sequence: 3,
        },
      ],
      manifest_sha256: 'b'.repeat(64),
    }),
  }),
};
