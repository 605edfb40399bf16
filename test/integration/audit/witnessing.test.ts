import { execFile } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { loadAuditSigningKey, type AuditKey } from '../../../src/audit-trail/audit-key.js';
import { LOG_TREE } from '../../../src/audit-trail/seal/log-tree.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { findTreeHead } from '../../../src/audit-trail/prove/tree-heads.js';
import {
  signTreeHead,
  treeOrigin,
  treeVerifierKey,
  type SignedTreeHead,
} from '#audit-log/transparency/tree-head.js';
import { parseWitnesses, startWitnessing } from '../../../src/audit-trail/seal/witnessing.js';
import { proveConsistency } from '../../../src/audit-trail/prove/tree-proofs.js';
import { cosignedAt } from '#audit-log/transparency/cosignature.js';
import { parseCheckpointText } from '#audit-log/transparency/checkpoint.js';
import {
  COSIGNATURE_ED25519,
  noteSigner,
  openNote,
  parseNote,
  parseVerifierKey,
  signNote,
  verifierKeyText,
} from '#audit-log/transparency/signed-note.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { startWitnessProcess, type WitnessProcess } from '../../support/witness-process.js';
import { waitUntil } from '../../support/wait.js';
import { freePort } from '../../../src/net/free-port.js';

const SPACE = 'witnessed-space';
const run = promisify(execFile);
let service: TestService;
let auditKey: AuditKey;
let witness: WitnessProcess;
let witnessDir: string;
let credential: { client_id: string; client_secret: string };
const logLines: Array<{ level: number; msg: string; witness?: string }> = [];
const logger = pino(
  { level: 'debug' },
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(JSON.parse(chunk.toString()) as (typeof logLines)[number]);
      done();
    },
  }),
);

beforeAll(async () => {
  // The log tree's heads are served once the checkpoint window they were signed in is over: the
  // API's clock runs one window ahead, so each head is served as soon as it is signed.
  const windowMs = 60_000; // AUDIT_CHECKPOINT_INTERVAL_SECONDS' default
  service = await startTestService({}, undefined, undefined, {
    clock: { now: () => Date.now() + windowMs },
  });
  auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  credential = await createCredentialVia(service, SPACE);
  witnessDir = await mkdtemp(path.join(tmpdir(), 'witness-'));
  // One key signs every space's tree under its own origin: the witness takes them by prefix.
  witness = await startWitnessProcess({
    name: 'witness.test/w1',
    dir: witnessDir,
    logs: witnessLogs(),
  });
});
afterAll(async () => {
  witness?.child.kill('SIGTERM');
  await rm(witnessDir, { recursive: true, force: true });
});

/** The witness's --log entries: the log tree, and every space tree by prefix (one key signs all). */
function witnessLogs(): string[] {
  const issuer = service.config.TOKEN_ISSUER;
  return [
    `${treeOrigin(issuer, LOG_TREE)}=${treeVerifierKey(auditKey, treeOrigin(issuer, LOG_TREE))}`,
    `${treeOrigin(issuer, '').replace(/log$/, 'space/')}*=${treeVerifierKey(auditKey, treeOrigin(issuer, SPACE))}`,
  ];
}

/** What the projector does each interval, with its witnessing: seal, sign, send the heads. */
async function settle(witnessing: ReturnType<typeof startWitnessing>): Promise<void> {
  while ((await sealLog(service.database.db, 500)) > 0);
  await signTreeHeads(
    service.database.db,
    (treeId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
    {
      onTreeHead: (head) => witnessing.submit(head),
    },
  );
  await witnessing.idle();
}

const witnessOf = () => parseWitnesses(`${witness.url}/add-checkpoint ${witness.vkey}`);

/** The space's newest signed head, as the projector would submit it. */
async function newestSpaceHead(): Promise<SignedTreeHead> {
  const head = await service.database.db
    .selectFrom('merkle_checkpoints')
    .select(['tree_size', 'note'])
    .where('space_id', '=', SPACE)
    .orderBy('tree_size', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return { treeId: SPACE, size: Number(head.tree_size), note: head.note };
}

/** The space's export of the last hour, as its auditor downloads it, and the audit key's file. */
async function exportSpace(): Promise<{ lines: string[]; keyFile: string }> {
  const asUser = {
    authorization: `Bearer ${await service.loginToken([SPACE])}`,
    'x-service-space-id': SPACE,
  };
  const served = (await (
    await fetch(`${service.baseUrl}/v1/audit/checkpoints`, { headers: asUser })
  ).json()) as { public_key: unknown };
  const keyFile = path.join(witnessDir, 'audit.jwk');
  await writeFile(keyFile, JSON.stringify(served.public_key));
  const from = new Date(Date.now() - 3_600_000).toISOString();
  const to = new Date(Date.now() + 60_000).toISOString();
  const exported = await (
    await fetch(`${service.baseUrl}/v1/audit/export?from=${from}&to=${to}`, { headers: asUser })
  ).text();
  return { lines: exported.trim().split('\n'), keyFile };
}

/** `npm run verify-export` on `lines`: its exit code and its verdict. */
async function verifyExport(lines: readonly string[], keyFile: string, ...options: string[]) {
  const file = path.join(witnessDir, `export-${Math.random().toString(36).slice(2)}.ndjson`);
  await writeFile(file, lines.join('\n'));
  const result = await run(process.execPath, [
    '--import',
    'tsx',
    'src/cli/verify-export.ts',
    `--key=${keyFile}`,
    ...options,
    file,
  ]).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return {
    code: result.code,
    stderr: result.stderr,
    verdict: (result.stdout ? JSON.parse(result.stdout) : {}) as Record<string, unknown>,
  };
}

describe('witnesses cosign the tree heads the projector signs', () => {
  it("sends each space's and the log's head, with a consistency proof from the last one cosigned, and serves them cosigned", async () => {
    const witnessing = startWitnessing(service.database.db, witnessOf(), {
      logger,
    });
    const asUser = {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
    };
    const witnessKey = parseVerifierKey(witness.vkey);
    for (let round = 0; round < 2; round += 1) {
      for (let i = 0; i < 3; i += 1) await privateTokenVia(service, credential);
      await settle(witnessing);
      for (const tree of ['space', 'log']) {
        const response = await fetch(
          `${service.baseUrl}/v1/audit/tree-head?tree=${tree}&cosigned=1`,
          {
            headers: asUser,
          },
        );
        expect(response.status).toBe(200);
        const head = (await response.json()) as {
          checkpoint: string;
          tree_size: number;
          cosignatures: number;
          verifier_key: string;
        };
        expect(head.cosignatures).toBe(1);
        expect(cosignedAt(head.checkpoint, witnessKey)).toBeGreaterThan(1_700_000_000);
        // Still the log's own signature too: the cosignature is one more line.
        const text = openNote(head.checkpoint, parseVerifierKey(head.verifier_key));
        expect(parseCheckpointText(text!).size).toBe(head.tree_size);
      }
    }
    const rows = await service.database.db
      .selectFrom('merkle_cosignatures')
      .select(['space_id', 'tree_size'])
      .orderBy('space_id')
      .orderBy('tree_size')
      .execute();
    // Two heads of each tree, each cosigned once (the second sent with a proof from the first).
    expect(rows.filter((row) => row.space_id === SPACE)).toHaveLength(2);
    expect(rows.filter((row) => row.space_id === LOG_TREE)).toHaveLength(2);
    // The witness's monitoring GET (C2SP tlog-witness): by the origin's SHA-256, the checkpoint it
    // last cosigned, with the log's signature it verified and its own cosignature.
    const origin = treeOrigin(service.config.TOKEN_ISSUER, LOG_TREE);
    const hash = createHash('sha256').update(origin).digest('hex');
    const monitored = await fetch(`${witness.url}/${hash}/checkpoint`);
    expect(monitored.status).toBe(200);
    const note = await monitored.text();
    const logKey = treeVerifierKey(auditKey, origin);
    const cosignedText = openNote(note, parseVerifierKey(logKey));
    expect(parseCheckpointText(cosignedText!).size).toBe(
      Math.max(...rows.filter((row) => row.space_id === LOG_TREE).map((row) => row.tree_size)),
    );
    expect(cosignedAt(note, witnessKey)).toBeGreaterThan(1_700_000_000);
    expect((await fetch(`${witness.url}/${'0'.repeat(64)}/checkpoint`)).status).toBe(404);
    await witnessing.stop();
  }, 60_000);

  it('learns the size a witness holds from its 409, and a head the witness refuses is logged and never stored as cosigned', async () => {
    const db = service.database.db;
    const issuer = service.config.TOKEN_ISSUER;
    const sign = (treeId: string, size: number, root: Buffer) =>
      signTreeHead(auditKey, treeOrigin(issuer, treeId), size, root);
    /** Seals, signs the heads and returns the space's, sending it nowhere. */
    const nextSpaceHead = async () => {
      await privateTokenVia(service, credential);
      while ((await sealLog(db, 500)) > 0);
      const signed: SignedTreeHead[] = [];
      await signTreeHeads(db, sign, {
        onTreeHead: (head) => signed.push(head),
      });
      return signed.find((head) => head.treeId === SPACE)!;
    };
    const cosignedSizes = async () =>
      (
        await db
          .selectFrom('merkle_cosignatures')
          .select('tree_size')
          .where('space_id', '=', SPACE)
          .orderBy('tree_size')
          .execute()
      ).map((row) => Number(row.tree_size));
    const before = await cosignedSizes();
    const last = before.at(-1)!;

    // The witness moves on without a cosignature being kept (a leader that died after sending).
    const unrecorded = await nextSpaceHead();
    const proof = await proveConsistency(db, SPACE, last, unrecorded.size);
    const byHand = await fetch(`${witness.url}/add-checkpoint`, {
      method: 'POST',
      body: `old ${last}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${unrecorded.note}`,
    });
    expect(byHand.status).toBe(200);
    // The next head is sent "old <last>": the witness answers 409 with its size, and the
    // submitter proves consistency from there instead.
    const next = await nextSpaceHead();
    const witnessing = startWitnessing(db, witnessOf(), { logger });
    witnessing.submit(next);
    await witnessing.idle();
    expect(await cosignedSizes()).toEqual([...before, next.size]);

    // A rewritten history: a head of the right size whose root is not the tree's. The witness
    // refuses it (422); the submitter logs it as an error and keeps nothing.
    const real = await nextSpaceHead();
    logLines.length = 0;
    witnessing.submit({
      treeId: SPACE,
      size: real.size,
      note: sign(SPACE, real.size, Buffer.alloc(32, 7)),
    });
    await witnessing.idle();
    expect(logLines).toContainEqual(
      expect.objectContaining({ level: 50, msg: 'witness refused the tree head' }),
    );
    expect(await cosignedSizes()).toEqual([...before, next.size]);
    // The true head of that size is still cosigned: the witness holds the last one it vouched for.
    witnessing.submit(real);
    await witnessing.idle();
    expect(await cosignedSizes()).toEqual([...before, next.size, real.size]);
    await witnessing.stop();
  }, 60_000);

  it('drops a head older than one of ours the witness holds (a deposed leader queued it) as superseded, not as a fork', async () => {
    const db = service.database.db;
    const witnessing = startWitnessing(db, witnessOf(), { logger });
    await privateTokenVia(service, credential);
    await settle(witnessing);
    const older = await newestSpaceHead();
    await privateTokenVia(service, credential);
    await settle(witnessing);
    const newer = await newestSpaceHead();
    expect(newer.size).toBeGreaterThan(older.size);
    // What the deposed projector's queue sends after the new leader's head was cosigned.
    logLines.length = 0;
    witnessing.submit(older);
    await witnessing.idle();
    expect(logLines.filter((line) => line.level >= 50)).toEqual([]);
    expect(logLines).toContainEqual(
      expect.objectContaining({ msg: 'head superseded by a later one of ours' }),
    );
    await witnessing.stop();
  }, 60_000);

  it("carries the space tree's heads in an export; verify-export holds them to the events and to N cosignatures", async () => {
    const asUser = {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
    };
    const served = (await (
      await fetch(`${service.baseUrl}/v1/audit/checkpoints`, { headers: asUser })
    ).json()) as { public_key: unknown };
    const keyFile = path.join(witnessDir, 'audit.jwk');
    await writeFile(keyFile, JSON.stringify(served.public_key));
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const to = new Date(Date.now() + 60_000).toISOString();
    const exported = await (
      await fetch(`${service.baseUrl}/v1/audit/export?from=${from}&to=${to}`, { headers: asUser })
    ).text();
    const lines = exported.trim().split('\n');
    const heads = lines.filter((line) => line.includes('"type":"tree-head"'));
    expect(heads.length).toBeGreaterThanOrEqual(4);
    const verify = async (text: string, ...options: string[]) => {
      const file = path.join(witnessDir, `export-${heads.length}-${options.length}.ndjson`);
      await writeFile(file, text);
      const result = await run(process.execPath, [
        '--import',
        'tsx',
        'src/cli/verify-export.ts',
        `--key=${keyFile}`,
        ...options,
        file,
      ]).then(
        (ok) => ({ code: 0, stdout: ok.stdout }),
        (error: { code: number; stdout: string }) => error,
      );
      return { code: result.code, verdict: JSON.parse(result.stdout) as Record<string, unknown> };
    };
    const witnessed = [`--witness=${witness.vkey}`, '--min-cosignatures=1'];
    const ok = await verify(exported, ...witnessed);
    expect(ok.verdict).toMatchObject({
      ok: true,
      tree_heads: heads.length,
      tree_heads_matched: heads.length,
      cosignatures_required: 1,
    });
    expect(ok.code).toBe(0);
    const latest = await findTreeHead(service.database.db, SPACE, { cosigned: 1 });
    expect(ok.verdict.witnessed_through).toBe(latest!.size);

    // No head at all, or none cosigned: nothing in it was witnessed.
    const headless = lines.filter((line) => !heads.includes(line)).join('\n');
    expect((await verify(headless, ...witnessed)).verdict).toMatchObject({
      ok: false,
      reason: 'tree_head_missing',
    });
    const stripped = lines
      .map((line) => {
        if (!heads.includes(line)) return line;
        const head = JSON.parse(line) as { checkpoint: string };
        return JSON.stringify({
          ...head,
          checkpoint: head.checkpoint.replace(/\u2014 witness\.test\S* \S+\n/g, ''),
        });
      })
      .join('\n');
    expect((await verify(stripped, ...witnessed)).verdict).toMatchObject({
      ok: false,
      reason: 'tree_head_unwitnessed',
    });
    expect((await verify(stripped)).code).toBe(0);
    // A head the audit key signed over another root: the exported events do not make it.
    const resigned = lines
      .map((line) => {
        if (line !== heads[0]) return line;
        const head = JSON.parse(line) as { tree_size: number };
        const note = signTreeHead(
          auditKey,
          treeOrigin(service.config.TOKEN_ISSUER, SPACE),
          head.tree_size,
          Buffer.alloc(32, 1),
        );
        return JSON.stringify({ ...head, checkpoint: note });
      })
      .join('\n');
    expect((await verify(resigned)).verdict).toMatchObject({
      ok: false,
      reason: 'tree_head_mismatch',
    });
    // Signed by another key: forged.
    const other = generateKeyPairSync('ed25519').privateKey;
    const forged = lines
      .map((line) => {
        if (line !== heads[0]) return line;
        const head = JSON.parse(line) as { tree_size: number; checkpoint: string };
        const text = parseNote(head.checkpoint).text;
        const origin = treeOrigin(service.config.TOKEN_ISSUER, SPACE);
        return JSON.stringify({ ...head, checkpoint: signNote(text, [noteSigner(origin, other)]) });
      })
      .join('\n');
    expect((await verify(forged)).verdict).toMatchObject({
      ok: false,
      reason: 'tree_head_forged',
    });
  }, 60_000);

  it('keeps a head for a witness that is down and sends it once the witness is back', async () => {
    const db = service.database.db;
    const port = await freePort();
    const dir = path.join(witnessDir, 'w2');
    const options = { name: 'witness.test/w2', dir, port, logs: witnessLogs() };
    const first = await startWitnessProcess(options);
    first.child.kill('SIGTERM');
    await new Promise((resolve) => first.child.once('exit', resolve));
    const witnessing = startWitnessing(
      db,
      parseWitnesses(`http://127.0.0.1:${port}/add-checkpoint ${first.vkey}`),
      { logger, backoffMs: 300 },
    );
    const head = await db
      .selectFrom('merkle_checkpoints')
      .select(['tree_size', 'note'])
      .where('space_id', '=', SPACE)
      .orderBy('tree_size', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    logLines.length = 0;
    witnessing.submit({ treeId: SPACE, size: Number(head.tree_size), note: head.note });
    await witnessing.idle();
    expect(logLines).toContainEqual(
      expect.objectContaining({ msg: 'witness not reached; sent again later' }),
    );
    const cosignedByW2 = () =>
      db
        .selectFrom('merkle_cosignatures')
        .select('tree_size')
        .where('witness', '=', 'witness.test/w2')
        .execute();
    expect(await cosignedByW2()).toEqual([]);
    // The quiet space signs nothing new: the kept head alone reaches the witness once it is back.
    const back = await startWitnessProcess(options);
    try {
      const rows = await waitUntil(cosignedByW2, (found) => found.length === 1);
      expect(Number(rows[0]!.tree_size)).toBe(Number(head.tree_size));
    } finally {
      back.child.kill('SIGTERM');
      await witnessing.stop();
    }
  }, 60_000);

  it("reads at most 64 KiB of a witness's answer: one that answers 128 MiB is cut off and logged", async () => {
    // A witness that answers without end (it could be anyone the setting names, or a proxy).
    const flood = noteSigner(
      'witness.test/flood',
      generateKeyPairSync('ed25519').privateKey,
      COSIGNATURE_ED25519,
    );
    const total = 128 * 1024 * 1024;
    let written = 0;
    let hungUp = false;
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', async () => {
        response.writeHead(200, { 'content-type': 'text/plain' });
        const closed = new Promise((resolve) => response.once('close', resolve));
        void closed.then(() => (hungUp = true));
        const chunk = Buffer.alloc(64 * 1024, 'A');
        while (!hungUp && written < total) {
          written += chunk.length;
          if (!response.write(chunk)) await Promise.race([once(response, 'drain'), closed]);
        }
        response.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const witnessing = startWitnessing(
      service.database.db,
      parseWitnesses(`http://127.0.0.1:${port}/add-checkpoint ${verifierKeyText(flood)}`),
      { logger, timeoutMs: 60_000 },
    );
    try {
      logLines.length = 0;
      witnessing.submit(await newestSpaceHead());
      await witnessing.idle();
      expect(logLines).toContainEqual(
        expect.objectContaining({
          level: 50,
          msg: 'witness refused the tree head',
          answerOverBytes: 64 * 1024,
        }),
      );
      // It hung up: the witness could write what the sockets' buffers hold, never the 128 MiB.
      await waitUntil(() => hungUp);
      expect(written).toBeLessThan(32 * 1024 * 1024);
    } finally {
      await witnessing.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it('logs a witness that holds another root of the same size as a fork, not as current', async () => {
    const dir = path.join(witnessDir, 'w-fork');
    const forkWitness = await startWitnessProcess({
      name: 'witness.test/fork',
      dir,
      logs: witnessLogs(),
    });
    try {
      const real = await newestSpaceHead();
      const forged = signTreeHead(
        auditKey,
        treeOrigin(service.config.TOKEN_ISSUER, SPACE),
        real.size,
        Buffer.alloc(32, 9),
      );
      // Someone holding the audit key showed this witness another history of the same size.
      const shown = await fetch(`${forkWitness.url}/add-checkpoint`, {
        method: 'POST',
        body: `old 0\n\n${forged}`,
      });
      expect(shown.status).toBe(200);
      const witnessing = startWitnessing(
        service.database.db,
        parseWitnesses(`${forkWitness.url}/add-checkpoint ${forkWitness.vkey}`),
        { logger },
      );
      logLines.length = 0;
      witnessing.submit(real);
      await witnessing.idle();
      await witnessing.stop();
      expect(logLines).toContainEqual(
        expect.objectContaining({
          level: 50,
          msg: 'witness holds another root of that size',
          witness: 'witness.test/fork',
        }),
      );
    } finally {
      forkWitness.child.kill('SIGTERM');
    }
  }, 60_000);

  it('verify-export holds the newest head to --min-cosignatures (or says how far the witnessing reaches) and counts a witness key once', async () => {
    const { lines, keyFile } = await exportSpace();
    const heads = lines.filter((line) => line.includes('"type":"tree-head"'));
    const sizeOf = (line: string) => (JSON.parse(line) as { tree_size: number }).tree_size;
    const newest = heads.reduce((a, b) => (sizeOf(b) > sizeOf(a) ? b : a));
    const olderCosigned = heads
      .filter((line) => line !== newest && line.includes('\u2014 witness.test/w1 '))
      .map(sizeOf);
    expect(olderCosigned.length).toBeGreaterThan(0);
    // The witness was down after the older heads: the newest carries no cosignature.
    const uncosignedNewest = lines.map((line) => {
      if (line !== newest) return line;
      const head = JSON.parse(line) as { checkpoint: string };
      return JSON.stringify({
        ...head,
        checkpoint: head.checkpoint.replace(/\u2014 witness\.test\S* \S+\n/g, ''),
      });
    });
    const witnessed = [`--witness=${witness.vkey}`, '--min-cosignatures=1'];
    const strict = await verifyExport(uncosignedNewest, keyFile, ...witnessed);
    expect(strict.verdict).toMatchObject({
      ok: false,
      reason: 'tree_head_unwitnessed',
      line: lines.indexOf(newest) + 1,
    });
    expect(strict.code).toBe(1);
    const tail = await verifyExport(
      uncosignedNewest,
      keyFile,
      ...witnessed,
      '--allow-unwitnessed-tail',
    );
    expect(tail.verdict).toMatchObject({
      ok: true,
      witnessed_through: Math.max(...olderCosigned),
      newest_tree_head: sizeOf(newest),
    });
    expect(tail.code).toBe(0);
    // One witness's key given twice is one witness: two cosignatures cannot be asked of it.
    const twice = await verifyExport(
      lines,
      keyFile,
      `--witness=${witness.vkey}`,
      `--witness=${witness.vkey}`,
      '--min-cosignatures=2',
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/at most the distinct --witness keys given \(1\)/);
  }, 60_000);

  it('refuses a witness setting it cannot use, naming the entry', () => {
    expect(() => parseWitnesses('http://w.example/add-checkpoint')).toThrow(
      /AUDIT_WITNESSES: entry 1 .*expected "<URL> <verifier key>"/,
    );
    expect(() => parseWitnesses(`ftp://w.example ${witness.vkey}`)).toThrow(/http\(s\) URL/);
    // A log key (type 0x01) is not a witness key.
    const logKey = treeVerifierKey(auditKey, 'token-authority.test/audit/log');
    expect(() => parseWitnesses(`http://w.example ${logKey}`)).toThrow(/type 0x04/);
  });
});
