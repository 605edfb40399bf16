import { spawn } from 'node:child_process';
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTlogProof } from '../../src/check/tlog-proof-check.js';
import { checkpointText } from '../../src/transparency/checkpoint.js';
import { cosignatureLine, cosignatureOf, cosignedAt } from '../../src/transparency/cosignature.js';
import { inclusionProof, leafHash, memoryTree, treeRoot } from '../../src/transparency/merkle.js';
import { mlDsaAvailable, newMlDsaPrivateKey } from '../../src/transparency/ml-dsa.js';
import {
  COSIGNATURE_ED25519,
  COSIGNATURE_ML_DSA_44,
  noteSigner,
  parseVerifierKey,
  signNote,
  verifierKeyText,
  type NoteSigner,
} from '../../src/transparency/signed-note.js';
import { parseTlogPolicy } from '../../src/transparency/tlog-policy.js';
import { formatTlogProof } from '../../src/transparency/tlog-proof.js';
import { addCheckpoint, memoryWitnessState, originHash } from '../../src/transparency/witness.js';
import { parseCosignerKey } from '../../src/transparency/witness-keys.js';
import { openMlDsaKey } from '../../src/witness/ml-dsa-key.js';
import { ConfigError } from 'token-authority-settings';
import {
  OWN_ENTRIES,
  OWN_LOG_VKEY,
  OWN_NOTE,
  OWN_PQ_VKEY,
  TORCHWOOD_NOTE,
  TORCHWOOD_VKEY,
} from './ml-dsa-44-vectors.js';

// ---------------------------------------------------------------------------------------------
// A checker written from C2SP tlog-cosignature and signed-note alone, with node:crypto and
// nothing of the package: what a reviewer's own code would do.

const u64 = (value: bigint) => {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(value);
  return bytes;
};

/** The vkey `<name>+<hex key id>+base64(type ‖ key)`, its id SHA-256(name ‖ 0x0A ‖ type ‖ key)[:4]. */
function readVkey(vkey: string, type: number, size: number) {
  const [name, id] = vkey.split('+') as [string, string];
  const material = Buffer.from(vkey.slice(name.length + id.length + 2), 'base64');
  if (material[0] !== type || material.length !== 1 + size) throw new Error('not that key type');
  const key = material.subarray(1);
  const keyId = createHash('sha256')
    .update(Buffer.concat([Buffer.from(`${name}\n`), Buffer.from([type]), key]))
    .digest()
    .subarray(0, 4);
  if (keyId.toString('hex') !== id) throw new Error('the key id does not match');
  return { name, keyId, key };
}

/** A note's text and its lines `— <name> base64(key id ‖ u64 timestamp ‖ signature)` by `name`. */
function linesBy(note: string, name: string, keyId: Buffer) {
  const split = note.lastIndexOf('\n\n');
  const text = note.slice(0, split + 1);
  const blobs = note
    .slice(split + 2)
    .split('\n')
    .map((line) => /^\u2014 (\S+) (\S+)$/u.exec(line))
    .filter((match) => match?.[1] === name)
    .map((match) => Buffer.from(match![2]!, 'base64'))
    .filter((blob) => blob.subarray(0, 4).equals(keyId));
  return { text, blobs };
}

/**
 * The timestamp of a valid ML-DSA-44 cosignature (type 0x06) by `vkey` on `note`: the signature
 * (2,420 bytes) is over `cosigned_message`: "subtree/v1\n\0", the cosigner name (1-byte length),
 * the u64 timestamp, the origin (1-byte length), u64 start 0, u64 end (the size), the root.
 */
function specMlDsaCosignedAt(note: string, vkey: string): bigint | undefined {
  const { name, keyId, key } = readVkey(vkey, 0x06, 1312);
  // SubjectPublicKeyInfo { AlgorithmIdentifier { id-ml-dsa-44 2.16.840.1.101.3.4.3.17 }, BIT STRING }
  const algorithm = Buffer.from('300b0609608648016503040311', 'hex');
  const bits = Buffer.concat([Buffer.from([0x03, 0x82, 0x05, 0x21, 0x00]), key]);
  const body = Buffer.concat([algorithm, bits]);
  const spki = Buffer.concat([
    Buffer.from([0x30, 0x82, body.length >> 8, body.length & 0xff]),
    body,
  ]);
  const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const { text, blobs } = linesBy(note, name, keyId);
  const [origin, size, root] = text.split('\n') as [string, string, string];
  for (const blob of blobs) {
    if (blob.length !== 4 + 8 + 2420) continue;
    const timestamp = blob.readBigUInt64BE(4);
    const message = Buffer.concat([
      Buffer.from('subtree/v1\n\0', 'latin1'),
      Buffer.from([Buffer.byteLength(name)]),
      Buffer.from(name),
      u64(timestamp),
      Buffer.from([Buffer.byteLength(origin)]),
      Buffer.from(origin),
      u64(0n),
      u64(BigInt(size)),
      Buffer.from(root, 'base64'),
    ]);
    if (verify(null, message, publicKey, blob.subarray(12))) return timestamp;
  }
  return undefined;
}

/** The same for an Ed25519 cosignature (0x04): over "cosignature/v1\ntime <t>\n" and the text. */
function specEd25519CosignedAt(note: string, vkey: string): bigint | undefined {
  const { name, keyId, key } = readVkey(vkey, 0x04, 32);
  const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), key]);
  const publicKey = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const { text, blobs } = linesBy(note, name, keyId);
  for (const blob of blobs) {
    if (blob.length !== 4 + 8 + 64) continue;
    const timestamp = blob.readBigUInt64BE(4);
    const message = Buffer.from(`cosignature/v1\ntime ${timestamp}\n${text}`);
    if (verify(null, message, publicKey, blob.subarray(12))) return timestamp;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------

const ORIGIN = 'log.example/audit/log';
const NOW = 1_795_000_000;
const log = noteSigner(ORIGIN, generateKeyPairSync('ed25519').privateKey);
const ed = noteSigner(
  'witness.example/w1',
  generateKeyPairSync('ed25519').privateKey,
  COSIGNATURE_ED25519,
);
const tree = memoryTree(Array.from({ length: 9 }, (_, i) => leafHash(Buffer.from(`e${i}`))));
const text = checkpointText({ origin: ORIGIN, size: 9, root: treeRoot(tree, 9) });
const signed = signNote(text, [log]);

/** A line with one byte of its blob (after the key id) flipped at `at`. */
function flipped(line: string, at: number): string {
  const [dash, name, encoded] = line.trim().split(' ') as [string, string, string];
  const blob = Buffer.from(encoded, 'base64');
  blob[at]! ^= 0x01;
  return `${dash} ${name} ${blob.toString('base64')}\n`;
}

const OWN_TEXT = OWN_NOTE.slice(0, OWN_NOTE.indexOf('\n\n') + 1);
/** The tlog-proof of entry 2 of OWN_ENTRIES, its checkpoint `note` (and `more` lines). */
const ownProof = (more = '', note = OWN_NOTE) =>
  formatTlogProof({
    extra: OWN_ENTRIES[2]!,
    index: 2,
    proof: inclusionProof(memoryTree(OWN_ENTRIES.map(leafHash)), 2, 7),
    checkpoint: `${note}${more}`,
  });
const policy = (...lines: string[]) =>
  parseTlogPolicy([`log ${OWN_LOG_VKEY}`, ...lines, ''].join('\n'));

const MAIN = fileURLToPath(new URL('../../src/witness/main.ts', import.meta.url));
const dir = await mkdtemp(path.join(tmpdir(), 'ml-dsa-witness-'));
afterAll(() => rm(dir, { recursive: true, force: true }));
const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Runs the witness program with this Node (`--import tsx`): its output once it prints its keys
 * (it listens then) or it exits, and how to stop it.
 */
async function runWitness(folder: string, port: number, ...args: string[]) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      '--name=witness.example/w1',
      `--log=${ORIGIN}=${verifierKeyText(log)}`,
      `--port=${port}`,
      `--dir=${folder}`,
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const ready = new Promise<void>((resolve) =>
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      if (/its ML-DSA-44 verifier key: \S+\n/.test(stdout)) resolve();
    }),
  );
  const code = await Promise.race([exited, ready.then(() => 'started' as const)]);
  return {
    code,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe.runIf(mlDsaAvailable())('ML-DSA-44 cosignatures, on a Node that has ML-DSA-44', () => {
  // Made once the tests run: the describe's body runs on every Node, skipped or not.
  let pq: NoteSigner;
  beforeAll(() => {
    pq = noteSigner('witness.example/w1', newMlDsaPrivateKey(), COSIGNATURE_ML_DSA_44);
  });

  it('the witness cosigns with both keys, each line as the spec reads it', async () => {
    const state = memoryWitnessState();
    const answer = await addCheckpoint(`old 0\n\n${signed}`, {
      witness: [ed, pq],
      logs: new Map([[ORIGIN, log]]),
      state,
      nowSeconds: () => NOW,
    });
    expect(answer.status).toBe(200);
    const lines = answer.body.split('\n').filter(Boolean);
    expect(lines).toHaveLength(2);
    // Both named by the witness; 4 + 8 + 64 and 4 + 8 + 2,420 bytes.
    expect(lines.map((line) => Buffer.from(line.split(' ')[2]!, 'base64').length)).toEqual([
      76, 2432,
    ]);
    expect(specEd25519CosignedAt(signed + answer.body, verifierKeyText(ed))).toBe(BigInt(NOW));
    expect(specMlDsaCosignedAt(signed + answer.body, verifierKeyText(pq))).toBe(BigInt(NOW));
    // The package reads both back, and the monitoring GET's note carries both (C2SP).
    expect(cosignedAt(signed + answer.body, ed)).toBe(NOW);
    expect(cosignedAt(signed + answer.body, pq)).toBe(NOW);
    const kept = await state.byOriginHash(originHash(ORIGIN));
    expect(specMlDsaCosignedAt(kept!, verifierKeyText(pq))).toBe(BigInt(NOW));
    expect(specEd25519CosignedAt(kept!, verifierKeyText(ed))).toBe(BigInt(NOW));
  });

  it('the witness program with --ml-dsa-44 makes its ML-DSA-44 key once and cosigns with both', async () => {
    const folder = path.join(dir, 'both');
    const port = await freePort();
    const first = await runWitness(folder, port, '--ml-dsa-44');
    expect(first.code, first.stderr()).toBe('started');
    const vkeys = /its verifier key: (\S+)\nits ML-DSA-44 verifier key: (\S+)\n/.exec(
      first.stdout(),
    );
    try {
      const [, edKey, pqKey] = vkeys!;
      expect(parseVerifierKey(pqKey!).type).toBe(COSIGNATURE_ML_DSA_44);
      const response = await fetch(`http://127.0.0.1:${port}/add-checkpoint`, {
        method: 'POST',
        body: `old 0\n\n${signed}`,
      });
      const body = await response.text();
      expect(response.status).toBe(200);
      expect(specEd25519CosignedAt(signed + body, edKey!)).toBeGreaterThan(0n);
      expect(specMlDsaCosignedAt(signed + body, pqKey!)).toBeGreaterThan(0n);
      expect((await stat(path.join(folder, 'witness-ml-dsa-44.key'))).mode & 0o777).toBe(0o600);
    } finally {
      await first.stop();
    }
    // Started again, it reads the same key.
    const again = await runWitness(folder, port, '--ml-dsa-44');
    await again.stop();
    expect(again.stdout()).toContain(`its ML-DSA-44 verifier key: ${vkeys![2]}\n`);
  }, 30_000);

  it('refuses a flipped byte in the signature, the timestamp or the message', () => {
    const line = cosignatureLine(pq, text, NOW);
    const vkey = verifierKeyText(pq);
    expect(specMlDsaCosignedAt(signed + line, vkey)).toBe(BigInt(NOW));
    for (const at of [4 + 8, 4 + 8 + 1000, 4 + 8 + 2419, 4 + 7]) {
      expect(specMlDsaCosignedAt(signed + flipped(line, at), vkey)).toBeUndefined();
      expect(cosignatureOf(signed + flipped(line, at), pq)).toBeUndefined();
    }
    // The message: another size, another root, another origin (each re-signed by the log).
    const others = [
      checkpointText({ origin: ORIGIN, size: 8, root: treeRoot(tree, 8) }),
      checkpointText({ origin: ORIGIN, size: 9, root: treeRoot(tree, 8) }),
      checkpointText({ origin: `${ORIGIN}2`, size: 9, root: treeRoot(tree, 9) }),
    ];
    for (const other of others) {
      expect(specMlDsaCosignedAt(signNote(other, [log]) + line, vkey)).toBeUndefined();
      expect(cosignedAt(signNote(other, [log]) + line, pq)).toBeUndefined();
    }
  });

  it('a policy naming only an ML-DSA-44 witness reaches its quorum, and not with a flipped byte', () => {
    const only = policy(`witness pq ${OWN_PQ_VKEY}`, 'quorum pq');
    // The fixture is a real cosignature, by the spec's reading too (the other Node relies on it).
    expect(specMlDsaCosignedAt(OWN_NOTE, OWN_PQ_VKEY)).toBe(1_790_000_000n);
    expect(checkTlogProof(ownProof(), only)).toMatchObject({ ok: true, cosigned: ['pq'] });
    expect(checkTlogProof(ownProof(), only)).not.toHaveProperty('unverifiable');
    const [logLine, pqLine] = OWN_NOTE.slice(OWN_TEXT.length + 1).split('\n') as [string, string];
    const tampered = ownProof('', `${OWN_TEXT}\n${logLine}\n${flipped(pqLine, 100)}`);
    expect(checkTlogProof(tampered, only)).toMatchObject({ ok: false, reason: 'quorum_not_met' });
  });

  it("verifies another implementation's ML-DSA-44 cosignature (filippo.io/torchwood)", () => {
    expect(specMlDsaCosignedAt(TORCHWOOD_NOTE, TORCHWOOD_VKEY)).toBe(0n);
    expect(cosignedAt(TORCHWOOD_NOTE, parseVerifierKey(TORCHWOOD_VKEY))).toBe(0);
    const bigger = TORCHWOOD_NOTE.replace('\n1\n', '\n2\n');
    expect(cosignedAt(bigger, parseVerifierKey(TORCHWOOD_VKEY))).toBeUndefined();
  });
});

describe.runIf(!mlDsaAvailable())('ML-DSA-44 cosignatures, on a Node without ML-DSA-44', () => {
  it('configuring an ML-DSA-44 key fails at start with the setup error, nothing written', async () => {
    const file = path.join(dir, 'alone', 'witness-ml-dsa-44.key');
    const refused = openMlDsaKey(file, 'witness.example/w1');
    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(
      /^Invalid configuration: --ml-dsa-44: this Node \(v\d+\.\d+\.\d+\) has no ML-DSA-44; Node 24\.6 or later has$/,
    );
    expect(await exists(file)).toBe(false);
    // The program: exit 2 with that line, before its folder is made.
    const folder = path.join(dir, 'program');
    const run = await runWitness(folder, await freePort(), '--ml-dsa-44');
    expect(run.code).toBe(2);
    expect(run.stderr()).toMatch(
      /^Invalid configuration: --ml-dsa-44: this Node .* has no ML-DSA-44/,
    );
    expect(await exists(folder)).toBe(false);
  }, 30_000);

  it('reports a policy witness’s ML-DSA-44 cosignature as unverifiable, and does not count it', () => {
    const key = parseVerifierKey(OWN_PQ_VKEY);
    expect(key).toMatchObject({ type: COSIGNATURE_ML_DSA_44, publicKey: undefined });
    expect(key.rawKey).toHaveLength(1312);
    expect(cosignatureOf(OWN_NOTE, key)).toBe('unverifiable');
    expect(cosignedAt(OWN_NOTE, key)).toBeUndefined();
    expect(() => parseCosignerKey(OWN_PQ_VKEY)).toThrow(/has no ML-DSA-44/);
    // Alone it cannot meet the quorum: refused, and the verdict says why.
    const only = checkTlogProof(ownProof(), policy(`witness pq ${OWN_PQ_VKEY}`, 'quorum pq'));
    expect(only).toEqual({
      ok: false,
      reason: 'quorum_not_met',
      cosigned: [],
      unverifiable: ['pq'],
      unverifiable_why: expect.stringMatching(/^ML-DSA-44 cosignatures not counted: this Node/),
    });
    // Beside an Ed25519 witness that cosigned: one of two met, the other still named.
    const either = policy(
      `witness ed ${verifierKeyText(ed)}`,
      `witness pq ${OWN_PQ_VKEY}`,
      'group either any ed pq',
      'quorum either',
    );
    const withEd = ownProof(cosignatureLine(ed, OWN_TEXT, NOW));
    expect(checkTlogProof(withEd, either)).toMatchObject({
      ok: true,
      cosigned: ['ed'],
      unverifiable: ['pq'],
    });
    // Counted as two it would meet "all"; it is not.
    const both = policy(
      `witness ed ${verifierKeyText(ed)}`,
      `witness pq ${OWN_PQ_VKEY}`,
      'group both all ed pq',
      'quorum both',
    );
    expect(checkTlogProof(withEd, both)).toMatchObject({ ok: false, reason: 'quorum_not_met' });
  });
});

describe('ML-DSA-44 keys on any Node', () => {
  it('an Ed25519 witness key is still type 0x04, its lines as before', () => {
    expect(ed.type).toBe(COSIGNATURE_ED25519);
    const line = cosignatureLine(ed, text, NOW);
    expect(specEd25519CosignedAt(signed + line, verifierKeyText(ed))).toBe(BigInt(NOW));
    expect(cosignedAt(signed + line, ed)).toBe(NOW);
  });
});
