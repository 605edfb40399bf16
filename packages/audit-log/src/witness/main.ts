#!/usr/bin/env node
/**
 * `npm run witness -- --name=<witness name> --log=<origin>=<log vkey> [--log=…] [--port=9380]
 *   [--host=127.0.0.1] [--dir=.data/witness] [--max-origins=10000] [--ml-dsa-44]` (an origin
 *   ending in `*` is a prefix: every space tree of one log key)
 * An independent witness (C2SP tlog-witness): cosigns a log's checkpoint only when it extends,
 * by a consistency proof, the one it cosigned before. Its own key and its own record of each log's
 * latest tree head live in --dir, which only the witness should be able to write; run it where
 * the log's operators cannot reach, or it witnesses nothing. The key is worth only as much as that
 * record: it refuses to start with a key and no record, with a record it cannot read, or while
 * another witness holds the folder. With --ml-dsa-44 it also cosigns with an ML-DSA-44 key (C2SP
 * tlog-cosignature's SHOULD; Node 24.6 or later), a second line beside the Ed25519 one.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import {
  COSIGNATURE_ED25519,
  noteSigner,
  noteVerifier,
  parseSignerKey,
  parseVerifierKey,
  signerKeyText,
  verifierKeyText,
  type NoteVerifier,
} from '../transparency/signed-note.js';
import { addCheckpoint } from '../transparency/witness.js';
import { ConfigError, exitOnConfigError, parseCommandLine } from 'token-authority-settings';
import { lockDirectory } from './dir-lock.js';
import { readOrCreateFile } from '../read-or-create-file.js';
import { listen } from '../cli/listen.js';
import { checkMlDsaSetup, ML_DSA_KEY_FILE, openMlDsaKey } from './ml-dsa-key.js';
import { createStateFile, openStateFile } from './state-file.js';

const USAGE = `Usage: npm run witness -- --name=<witness name> --log=<origin>=<log vkey> [--log=...] [--port=9380]
         [--host=127.0.0.1] [--dir=.data/witness] [--max-origins=10000] [--ml-dsa-44]
Cosigns checkpoints of the logs named (C2SP tlog-witness, POST /add-checkpoint); an origin ending
in * names every origin it starts (each space's tree: --log='<host>/audit/space/*=<vkey>'). Prints its own
verifier key (give it to whoever checks cosignatures: verify-proof --witness). --dir holds its key
and its record of every log's head (state.json): back them up together; a key without its record
is refused. --max-origins bounds the logs it records (a prefix admits any origin under it).
--ml-dsa-44 also cosigns with an ML-DSA-44 key (${ML_DSA_KEY_FILE} in --dir, made on first use;
Node 24.6 or later), a second cosignature line beside the Ed25519 one, and prints its key too.`;
const { values } = parseCommandLine(USAGE, {
  name: { type: 'string' },
  log: { type: 'string', multiple: true },
  port: { type: 'string', default: '9380' },
  host: { type: 'string', default: '127.0.0.1' },
  dir: { type: 'string', default: path.join('.data', 'witness') },
  'max-origins': { type: 'string', default: '10000' },
  'ml-dsa-44': { type: 'boolean', default: false },
});
if (
  !values.name ||
  !values.log?.length ||
  !/^\d+$/.test(values.port!) ||
  !/^[1-9]\d{0,6}$/.test(values['max-origins']!)
) {
  console.error(USAGE);
  process.exit(2);
}

const exact = new Map<string, NoteVerifier>();
// `--log=<prefix>*=<vkey>`: every origin under the prefix (one per space), signed by the same key
// under the origin's own name (a note key's id covers its name).
const prefixes: [string, NoteVerifier][] = [];
for (const entry of values.log) {
  const split = entry.indexOf('=');
  try {
    const key = parseVerifierKey(entry.slice(split + 1));
    if (split < 1) throw new Error('expected <origin>=<vkey>');
    const origin = entry.slice(0, split);
    if (origin.endsWith('*')) prefixes.push([origin.slice(0, -1), key]);
    else exact.set(origin, key);
  } catch (error) {
    console.error(`--log ${entry.slice(0, Math.max(split, 0))}: ${(error as Error).message}`);
    process.exit(2);
  }
}

const dir = path.resolve(values.dir!);
const keyFile = path.join(dir, 'witness.key');
const stateFile = path.join(dir, 'state.json');
const mlDsaKeyFile = path.join(dir, ML_DSA_KEY_FILE);

/** Whether `file` exists; any error but "no such file" is thrown, never taken for "no". */
const exists = (file: string) =>
  stat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw new ConfigError([`--dir: ${file} cannot be read: ${error.code ?? error.message}`]);
    },
  );

/**
 * The folder held, its record read (created before the keys, when none exists), its key and,
 * with --ml-dsa-44, its ML-DSA-44 key.
 */
async function openWitnessDir() {
  // Before the folder is touched: a Node that cannot sign ML-DSA-44 never starts with it asked.
  if (values['ml-dsa-44']) checkMlDsaSetup(values.name!);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lock = await lockDirectory(dir, 'witness.lock', '--dir');
  process.on('exit', () => lock.release());
  const keys: string[] = [];
  for (const file of [keyFile, mlDsaKeyFile]) {
    if (await exists(file)) keys.push(path.basename(file));
  }
  const hasState = await exists(stateFile);
  if (keys.length > 0 && !hasState) {
    throw new ConfigError([
      `--dir ${dir}: ${keys.join(' and ')} ${keys.length > 1 ? 'are' : 'is'} there without state.json, the record of what it cosigned; with an empty record it would cosign a fork. Put back the state.json it last wrote, or retire this key (a new --dir, and a new key for the reviewers)`,
    ]);
  }
  if (!hasState) await createStateFile(stateFile);
  const key = parseSignerKey(
    await readOrCreateFile(keyFile, () =>
      signerKeyText(
        noteSigner(values.name!, generateKeyPairSync('ed25519').privateKey, COSIGNATURE_ED25519),
      ),
    ),
  );
  if (key.name !== values.name) {
    throw new ConfigError([
      `--name ${values.name}: this witness's key in ${dir} is named ${key.name}`,
    ]);
  }
  const mlDsaKey = values['ml-dsa-44'] ? await openMlDsaKey(mlDsaKeyFile, values.name!) : undefined;
  if (!mlDsaKey && (await exists(mlDsaKeyFile))) {
    console.error(`${mlDsaKeyFile} is not used: without --ml-dsa-44 only Ed25519 cosigns`);
  }
  const state = await openStateFile(stateFile, Number(values['max-origins']));
  return { key, mlDsaKey, state };
}

const { key: witness, mlDsaKey, state } = await openWitnessDir().catch(exitOnConfigError);

const logs = {
  get(origin: string): NoteVerifier | undefined {
    const known = exact.get(origin);
    if (known) return known;
    const prefix = prefixes.find(([start]) => origin.startsWith(start));
    // No Node key (an ML-DSA-44 vkey on a Node without it): it checks nothing, it signs for none.
    if (!prefix?.[1].publicKey) return undefined;
    try {
      return noteVerifier(origin, prefix[1].publicKey, prefix[1].type);
    } catch {
      return undefined; // not a valid key name: no key signs for it
    }
  },
};
const server = createServer((request, response) => {
  // C2SP tlog-witness monitoring: the checkpoint last cosigned for the log the hash names.
  const pathname = new URL(request.url ?? '/', 'http://witness').pathname;
  const monitoring = /^\/([0-9a-fA-F]{64})\/checkpoint$/.exec(pathname);
  if ((request.method === 'GET' || request.method === 'HEAD') && monitoring) {
    const hash = monitoring[1]!;
    const answer = (status: number, body: string, cache = 'no-store') =>
      response
        .writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': cache })
        .end(request.method === 'HEAD' ? undefined : body);
    if (hash !== hash.toLowerCase()) return void answer(400, 'the origin hash is lowercase hex\n');
    state.byOriginHash(hash).then(
      (note) =>
        note === undefined
          ? answer(404, 'this witness never cosigned that log\n')
          : note === 'kept-before-notes'
            ? answer(503, 'cosigned before notes were kept: served after its next cosignature\n')
            : answer(200, note, 'public, max-age=60'),
      () => answer(503, 'try again\n'),
    );
    return;
  }
  if (request.method !== 'POST' || request.url !== '/add-checkpoint') {
    response
      .writeHead(404, { 'content-type': 'text/plain' })
      .end('POST /add-checkpoint, GET /<origin hash>/checkpoint\n');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > 64 * 1024) request.destroy();
    else chunks.push(chunk);
  });
  request.on('end', () => {
    addCheckpoint(Buffer.concat(chunks).toString('utf8'), {
      witness: mlDsaKey ? [witness, mlDsaKey] : witness,
      logs,
      state,
      nowSeconds: () => Math.floor(Date.now() / 1000),
    }).then(
      (answer) =>
        response.writeHead(answer.status, { 'content-type': answer.contentType }).end(answer.body),
      (error: unknown) => {
        console.error(`add-checkpoint failed: ${(error as Error).message}`);
        response.writeHead(503, { 'retry-after': '5' }).end('try again\n');
      },
    );
  });
});
await listen(server, Number(values.port), values.host!, '--host/--port').catch(exitOnConfigError);
console.log(
  `witness ${witness.name} on ${values.host}:${values.port}, cosigning ${[...exact.keys(), ...prefixes.map(([p]) => `${p}*`)].join(', ')}`,
);
console.log(`its verifier key: ${verifierKeyText(witness)}`);
if (mlDsaKey) console.log(`its ML-DSA-44 verifier key: ${verifierKeyText(mlDsaKey)}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
