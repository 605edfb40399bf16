import { execFile, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminDatabaseUrl } from '../../support/test-database.js';
import { connect } from '../../../src/db/database.js';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { parseCheckpointText } from '#audit-log/transparency/checkpoint.js';
import { noteSigner, parseNote, signNote } from '#audit-log/transparency/signed-note.js';
import { withDatabase } from '../../support/database-url.js';
import { waitUntil } from '../../support/wait.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { tempDir } from '../../support/after-file.js';

const SPACE = 'space-evidence';
const tsx = path.resolve('node_modules/.bin/tsx');
let service: TestService;
let login: string;
let dir: string;
let keyFile: string;
let checkpointsFile: string;
let exportText: string;

/** Grows the trees over everything committed (the sealer's rounds). */
const seal = async () => {
  while ((await sealLog(service.database.db, 500)) > 0);
};
const range = () =>
  `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
const asUser = () => ({ authorization: `Bearer ${login}`, 'x-service-space-id': SPACE });
const exportNow = async (query = '') =>
  (
    await fetch(`${service.baseUrl}/v1/audit/export?${range()}${query}`, { headers: asUser() })
  ).text();

/** Runs `npm run verify-export -- --key <key> <file>` on `text`: exit code and verdict. */
async function verifyExport(
  text: string,
  key: string | undefined = keyFile,
  options: readonly string[] = [],
) {
  const file = path.join(dir, `export-${randomBytes(4).toString('hex')}.ndjson`);
  await writeFile(file, text);
  const args = ['src/cli/verify-export.ts', ...(key ? ['--key', key] : []), ...options, file];
  const result = await promisify(execFile)(tsx, args).then(
    (ok) => ({ code: 0, stdout: ok.stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
  return { code: result.code, verdict: JSON.parse(result.stdout) as Record<string, unknown> };
}

type EventLine = { type: 'event'; sequence: number; event: Record<string, unknown> };
const parse = (text: string) =>
  text
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as EventLine | { type: 'tree-head' | 'format'; checkpoint: string },
    );
type HeadLine = { type: 'tree-head'; tree_size: number; checkpoint: string };
const isHead = (line: string) => line.includes('"type":"tree-head"');

beforeAll(async () => {
  service = await startTestService();
  login = await service.loginToken([SPACE]);
  dir = await tempDir('evidence-');
  const auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  // Three rounds of activity, each sealed and checkpointed.
  for (let round = 0; round < 3; round++) {
    const credential = await createCredentialVia(service, SPACE);
    for (let i = 0; i < 4; i++) await privateTokenVia(service, credential);
    await seal();
    await signTreeHeads(
      service.database.db,
      (treeId, size, root) =>
        signTreeHead(auditKey, treeOrigin('https://token-authority.example', treeId), size, root),
      {
        dir: path.join(dir, 'checkpoints'),
      },
    );
  }
  const served = (await (
    await fetch(`${service.baseUrl}/v1/audit/checkpoints`, { headers: asUser() })
  ).json()) as { public_key: Record<string, unknown>; checkpoints: string[] };
  // JWS checkpoints are no longer made (issue 45): the route serves those made before, read only;
  // the signed tree heads are the checkpoints now.
  expect(served.checkpoints).toEqual([]);
  keyFile = path.join(dir, 'audit-key.jwk');
  await writeFile(keyFile, JSON.stringify(served.public_key));
  checkpointsFile = path.join(dir, 'checkpoints.json');
  await writeFile(checkpointsFile, JSON.stringify(served));
  exportText = await exportNow();
});

describe('an audit export', () => {
  it('without a key nothing is ok: a made-up export fails, and --no-signature-check says what it skipped', async () => {
    const madeUp = parse(exportText).slice(0, 1);
    const forged = [
      JSON.stringify(madeUp[0]),
      JSON.stringify({ type: 'checkpoint', jws: 'eyJhbGciOiJFZERTQSJ9.e30.AAAA' }),
    ].join('\n');
    const refused = await verifyExport(forged, '');
    expect(refused.code).toBe(1);
    expect(refused.verdict).toMatchObject({ ok: false, reason: 'no_key' });
    const real = await verifyExport(exportText, '', ['--no-signature-check']);
    expect(real.code).toBe(0);
    expect(real.verdict).toMatchObject({
      ok: true,
      checkpoints_verified: false,
      signatures: 'not checked (--no-signature-check)',
    });
    // The service's own answer, saved as it came, is a key: one flag.
    const withServed = await verifyExport(exportText, checkpointsFile);
    expect(withServed.verdict).toMatchObject({ ok: true, checkpoints_verified: true });
  });

  it('verifies offline with the audit key: gap-free events, signed tree heads matching their root, no secret hash', async () => {
    const { code, verdict } = await verifyExport(exportText);
    expect(exportText.split('\n')[0]).toBe('{"type":"format","version":2}');
    expect(exportText).not.toContain('"previous_hash"');
    expect(verdict).toMatchObject({
      ok: true,
      format: 2,
      space_id: SPACE,
      first_sequence: 1,
      tree_heads: 3,
      tree_heads_matched: 3,
      checkpoints_verified: true,
    });
    expect(code).toBe(0);
    const lines = parse(exportText);
    expect(verdict.events).toBe(lines.filter((line) => line.type === 'event').length);
    const { rows } = await service.database.pool.query<{ h: string }>(
      `SELECT data->>'secret_hash' AS h FROM events WHERE event_type = 'credential-created' AND space_id = $1`,
      [SPACE],
    );
    for (const { h } of rows) expect(exportText).not.toContain(h);
    expect(exportText).toContain('"secret_hash":"sha256:');
    // The tree head files on disk are the heads served.
    const size = String(verdict.last_sequence).padStart(12, '0');
    const head = await readFile(path.join(dir, 'checkpoints', SPACE, `${size}.checkpoint`), 'utf8');
    expect(exportText).toContain(JSON.stringify(head).slice(1, -1));
  });

  const events = () => parse(exportText).filter((line): line is EventLine => line.type === 'event');
  const without = (drop: (line: string, index: number) => boolean) =>
    exportText
      .trim()
      .split('\n')
      .filter((line, index) => !drop(line, index))
      .join('\n');

  it('names an edited event', async () => {
    const lines = exportText.trim().split('\n');
    const target = events()[5]!;
    const index = lines.findIndex((line) => line.includes(`"sequence":${target.sequence},`));
    const edited = JSON.parse(lines[index]!) as EventLine;
    (edited.event.data as Record<string, unknown>).client_id = 'ci_someone_else';
    lines[index] = JSON.stringify(edited);
    const { code, verdict } = await verifyExport(lines.join('\n'));
    expect(code).toBe(1);
    // The tree names the range between the last head that matched and the first that did not.
    expect(verdict).toMatchObject({ ok: false, reason: 'event_altered' });
    const [, from, to] = /sequences (\d+)\.\.(\d+)/.exec(String(verdict.detail))!;
    expect(target.sequence).toBeGreaterThanOrEqual(Number(from));
    expect(target.sequence).toBeLessThanOrEqual(Number(to));
  });

  it('names a deleted event', async () => {
    const target = events()[7]!;
    const { verdict } = await verifyExport(
      without((line) => line.includes(`"sequence":${target.sequence},`)),
    );
    expect(verdict).toMatchObject({
      ok: false,
      reason: 'event_missing',
      sequence: target.sequence,
    });
  });

  it('names reordered events', async () => {
    const lines = exportText.trim().split('\n');
    [lines[3], lines[4]] = [lines[4]!, lines[3]!];
    const { verdict } = await verifyExport(lines.join('\n'));
    expect(verdict).toMatchObject({ ok: false, reason: 'events_reordered' });
  });

  it('names a forged checkpoint (a tree head signed by another key)', async () => {
    const lines = exportText.trim().split('\n');
    const index = lines.findLastIndex(isHead);
    const original = JSON.parse(lines[index]!) as HeadLine;
    const text = parseNote(original.checkpoint).text;
    const { origin } = parseCheckpointText(text);
    const forger = generateKeyPairSync('ed25519').privateKey;
    const forged = signNote(text, [noteSigner(origin, forger)]);
    lines[index] = JSON.stringify({ ...original, checkpoint: forged });
    const { verdict } = await verifyExport(lines.join('\n'));
    expect(verdict).toMatchObject({ ok: false, reason: 'tree_head_forged' });
  });

  it('names a removed checkpoint, in the middle or the first (against the head files)', async () => {
    // A later head still commits to every event before it; the head files show the removal.
    const headLines = exportText.trim().split('\n').filter(isHead);
    for (const removed of [headLines[1]!, headLines[0]!]) {
      const { verdict } = await verifyExport(
        without((line) => line === removed),
        keyFile,
        [`--checkpoint-dir=${path.join(dir, 'checkpoints')}`],
      );
      expect(verdict).toMatchObject({ ok: false, reason: 'checkpoint_missing' });
    }
  });

  it('names events cut from the end up to the last checkpoint', async () => {
    const last = exportText.trim().split('\n').filter(isHead).at(-1)!;
    const covered = (JSON.parse(last) as HeadLine).tree_size;
    const { verdict } = await verifyExport(
      without((line) => {
        const parsed = JSON.parse(line) as { type: string; sequence?: number };
        return parsed.type === 'event' && parsed.sequence! >= covered - 2;
      }),
    );
    expect(verdict).toMatchObject({
      ok: false,
      reason: 'events_cut_at_end',
      sequence: covered - 2,
    });
  });

  it('fails an export whose checkpoints were removed, naming how many events are unanchored', async () => {
    const stripped = without(isHead);
    const { code, verdict } = await verifyExport(stripped);
    expect(code).toBe(1);
    expect(verdict).toMatchObject({ ok: false, reason: 'events_unanchored', sequence: 1 });
    expect(verdict.detail).toContain(`${events().length} event(s)`);
    // Said to be acceptable, the same export verifies and counts what is unanchored.
    const allowed = await verifyExport(stripped, keyFile, ['--allow-unanchored-tail']);
    expect(allowed.verdict).toMatchObject({ ok: true, unanchored_events: events().length });
  });

  it('with --checkpoint-dir, catches checkpoint rows deleted from the database (with or without the tail allowed)', async () => {
    const checkpointDir = path.join(dir, 'checkpoints');
    expect(
      (await verifyExport(exportText, keyFile, [`--checkpoint-dir=${checkpointDir}`])).verdict,
    ).toMatchObject({ ok: true });
    const client = await service.database.pool.connect();
    const { rows: saved } = await client.query(
      'SELECT * FROM merkle_checkpoints WHERE space_id = $1',
      [SPACE],
    );
    try {
      await client.query('SET session_replication_role = replica');
      await client.query('DELETE FROM merkle_checkpoints WHERE space_id = $1', [SPACE]);
      const rewritten = await exportNow('&through=now');
      expect(rewritten).not.toContain('"type":"tree-head"');
      const { code, verdict } = await verifyExport(rewritten, keyFile, [
        '--allow-unanchored-tail',
        `--checkpoint-dir=${checkpointDir}`,
      ]);
      expect(code).toBe(1);
      expect(verdict).toMatchObject({ ok: false, reason: 'checkpoint_missing' });
      expect(verdict.detail).toMatch(
        /tree head of size \d+ \(its file\) is missing from the export/,
      );
    } finally {
      for (const row of saved) {
        await client.query(
          `INSERT INTO merkle_checkpoints (space_id, tree_size, note, signed_at) VALUES ($1, $2, $3, $4)`,
          [row.space_id, row.tree_size, row.note, row.signed_at],
        );
      }
      await client.query('RESET session_replication_role');
      client.release();
    }
  });

  it('fails a fresh export at the sealed range holding the event a superuser edited behind the triggers', async () => {
    const target = events()[4]!;
    const client = await service.database.pool.connect();
    try {
      await client.query('SET session_replication_role = replica');
      await client.query(
        `UPDATE events SET data = jsonb_set(data, '{client_id}', '"ci_rewritten"') WHERE space_id = $1 AND global_position = $2`,
        [SPACE, target.event.global_position],
      );
    } finally {
      await client.query('RESET session_replication_role');
      client.release();
    }
    const { verdict } = await verifyExport(await exportNow());
    // The export carries the event as stored; the events up to the head after it no longer make
    // the root that head signed. The verdict names the range between the heads.
    expect(verdict).toMatchObject({ ok: false, reason: 'event_altered' });
    const [, from, to] = /sequences (\d+)\.\.(\d+)/.exec(String(verdict.detail))!;
    expect(Number(verdict.sequence)).toBe(Number(from));
    expect(target.sequence).toBeGreaterThanOrEqual(Number(from));
    expect(target.sequence).toBeLessThanOrEqual(Number(to));
  });
});

describe('audit reads', () => {
  it('are themselves events: who read, what they asked, how much came back', async () => {
    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);
    await fetch(`${service.baseUrl}/v1/audit/events?limit=3`, {
      headers: { ...asUser(), 'x-request-id': 'caller-42' },
    });
    const { rows } = await service.database.pool.query<{
      data: Record<string, unknown>;
      metadata: Record<string, unknown>;
    }>(
      `SELECT data, metadata FROM events WHERE event_type = 'audit-log-read' AND space_id = $1
       ORDER BY global_position DESC LIMIT 1`,
      [SPACE],
    );
    expect(rows[0]).toMatchObject({
      data: { kind: 'events', query: { limit: '3' }, rows_returned: 3, complete: true },
      metadata: {
        actor: 'user:alice',
        client_request_id: 'caller-42',
        client_ip: expect.any(String),
      },
    });
    expect(rows[0]!.metadata.request_id).not.toBe('caller-42');
    const exports = await service.database.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM events WHERE event_type = 'audit-log-read' AND space_id = $1 AND data->>'kind' = 'export'`,
      [SPACE],
    );
    expect(exports.rows[0]!.n).toBeGreaterThan(0);
  });
});

describe('an interrupted export', () => {
  it('is recorded before its first byte, and how it ended once the reader went away', async () => {
    const controller = new AbortController();
    const response = await fetch(`${service.baseUrl}/v1/audit/export?${range()}`, {
      headers: asUser(),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const reads = async () =>
      (
        await service.database.pool.query<{ data: { kind: string; complete: boolean } }>(
          `SELECT data FROM events WHERE event_type = 'audit-log-read' AND metadata->>'request_id' = $1
           ORDER BY global_position`,
          [requestId],
        )
      ).rows.map((row) => row.data);
    // Only the headers have arrived: the start is already in the log.
    expect(await reads()).toEqual([
      expect.objectContaining({ kind: 'export-started', complete: false }),
    ]);
    controller.abort();
    const recorded = await waitUntil(reads, (rows) => rows.length === 2);
    expect(recorded[1]).toMatchObject({ kind: 'export' });
  });
});

describe('least privilege', () => {
  it('the service roles can neither change the log and chains nor disable or drop their triggers', async () => {
    for (const role of ['token_authority_api', 'token_authority_projector']) {
      const login = `evidence_${randomBytes(4).toString('hex')}`;
      await service.database.pool.query(
        `CREATE ROLE ${login} LOGIN PASSWORD 'pw-${login}' IN ROLE ${role}`,
      );
      const url = new URL(withDatabase(adminDatabaseUrl(), service.database.name));
      url.username = login;
      url.password = `pw-${login}`;
      const restricted = connect({
        url: url.toString(),
        poolSize: 1,
        applicationName: 'least-privilege-test',
        idleInTransactionTimeoutMs: 5000,
      });
      try {
        await expect(restricted.pool.query('SELECT count(*) FROM events')).resolves.toBeDefined();
        const refused = [
          'UPDATE events SET metadata = metadata',
          'DELETE FROM events',
          'TRUNCATE events',
          'UPDATE log_seals SET event_count = event_count',
          'DELETE FROM space_ranges',
          'TRUNCATE merkle_checkpoints',
          'UPDATE merkle_nodes SET hash = hash',
          // The retired chains and JWS checkpoints: kept as they are, never extended.
          `INSERT INTO audit_checkpoints (space_id, checkpoint_number, sequence, head_hash, jws)
           VALUES ('s', 1, 1, '\\x00', 'forged')`,
          'ALTER TABLE events DISABLE TRIGGER ALL',
          'DROP TRIGGER events_no_update ON events',
          'ALTER TABLE space_ranges DISABLE TRIGGER space_ranges_no_delete',
          'SET session_replication_role = replica',
          // The columns the database assigns: position, transaction (commit order) and time.
          ...(['recorded_at', 'transaction_id', 'global_position'] as const).map(
            (column) =>
              `INSERT INTO events (space_id, stream_id, stream_position, event_id, event_type, data, ${column})
               OVERRIDING SYSTEM VALUE
               VALUES ('s', 'backdated', 1, gen_random_uuid(), 'audit-log-read', '{}', ${
                 column === 'recorded_at'
                   ? `'2001-01-01'`
                   : column === 'transaction_id'
                     ? `'1'::xid8`
                     : '1'
               })`,
          ),
        ];
        for (const statement of refused) {
          await expect(
            restricted.pool.query(statement),
            `${role}: ${statement}`,
          ).rejects.toMatchObject({
            code: expect.stringMatching(/^(42501|P0001)$/),
          });
        }
      } finally {
        await restricted.close();
      }
    }
  });

  it('NODE_ENV=production refuses to start as an owner or superuser, naming the way out', async () => {
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: service.database.url,
      LOGIN_PUBLIC_KEY: JSON.stringify(
        generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }),
      ),
      LOGIN_ISSUER: 'https://login.example',
      TOKEN_ISSUER: 'https://tokens.example',
      SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
      DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'silent',
    };
    const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('src/cli/api.ts')], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('ALLOW_PRIVILEGED_DATABASE_ROLE');
  });
});

describe('who and from where', () => {
  it('/healthz says when the service runs as a role that can rewrite the log (here: a superuser)', async () => {
    const body = (await (await fetch(`${service.baseUrl}/healthz`)).json()) as {
      status: string;
      warnings?: string[];
    };
    expect(body.status).toBe('ok');
    expect(body.warnings?.[0]).toMatch(/can alter or disable the audit log/);
  });

  it('believes X-Forwarded-For only through TRUSTED_PROXY_HOPS proxies (default 0: the socket)', async () => {
    const credential = await createCredentialVia(service, SPACE);
    await service.post(
      '/v1/credential/token',
      { ...credential, audience: 'storefront.test', grant_type: 'client_credentials' },
      { 'x-forwarded-for': '203.0.113.99' },
    );
    const { rows } = await service.database.pool.query<{ ip: string }>(
      `SELECT metadata->>'client_ip' AS ip FROM events
       WHERE event_type = 'private-token-issued' AND data->>'client_id' = $1`,
      [credential.client_id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.ip).not.toBe('203.0.113.99');
    expect(rows[0]!.ip).toMatch(/127\.0\.0\.1/);
  });
});

describe('checkpoints at shutdown', () => {
  it('a projector signs the tree heads that moved since its last checkpoint when it stops', async () => {
    const { startProjector } = await import('../../../src/projections/projector.js');
    const { pino } = await import('pino');
    const auditKey = await loadAuditSigningKey(undefined, service.dataDir);
    const count = async () =>
      (
        await service.database.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM merkle_checkpoints WHERE space_id = $1`,
          [SPACE],
        )
      ).rows[0]!.n;
    const before = await count();
    const projector = startProjector({
      db: service.database.db,
      url: service.database.url,
      projections: PROJECTIONS,
      batchSize: 500,
      pollIntervalMs: 50,
      logger: pino({ level: 'silent' }),
      seal: true,
      // Far longer than this test: only the shutdown checkpoint can appear.
      checkpoints: {
        intervalMs: 3_600_000,
        signTreeHead: (treeId, size, root) =>
          signTreeHead(auditKey, treeOrigin('https://token-authority.example', treeId), size, root),
      },
    });
    const credential = await createCredentialVia(service, SPACE);
    await privateTokenVia(service, credential);
    await waitUntil(() => projector.isLeader());
    await projector.nextPass();
    expect(await count()).toBe(before);
    await projector.stop();
    expect(await count()).toBe(before + 1);
  });
});
