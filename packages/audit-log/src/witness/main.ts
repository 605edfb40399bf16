#!/usr/bin/env node
/**
 * `npm run witness -- --name=<witness name> --log=<origin>=<log vkey> [--log=…] [--port=9380]
 *   [--host=127.0.0.1] [--dir=.data/witness] [--max-origins=10000]` (an origin ending in `*` is a
 *   prefix: every space tree of one log key)
 * An independent witness (C2SP tlog-witness): cosigns a log's checkpoint only when it extends,
 * by a consistency proof, the one it cosigned before. Its own key and its own record of each log's
 * latest tree head live in --dir, which only the witness should be able to write; run it where
 * the log's operators cannot reach, or it witnesses nothing. The key is worth only as much as that
 * record: it refuses to start with a key and no record, with a record it cannot read, or while
 * another witness holds the folder.
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
import { parseCommandLine } from '../cli/command-line.js';
import { lockDirectory } from './dir-lock.js';
import { readOrCreateFile } from '../read-or-create-file.js';
import { listen } from '../cli/listen.js';
import { exitOnSetupError, WitnessSetupError } from './setup-error.js';
import { createStateFile, openStateFile } from './state-file.js';

const USAGE = `Usage: npm run witness -- --name=<witness name> --log=<origin>=<log vkey> [--log=...] [--port=9380]
         [--host=127.0.0.1] [--dir=.data/witness] [--max-origins=10000]
Cosigns checkpoints of the logs named (C2SP tlog-witness, POST /add-checkpoint); an origin ending
in * names every origin it starts (each space's tree: --log='<host>/audit/space/*=<vkey>'). Prints its own
verifier key (give it to whoever checks cosignatures: verify-proof --witness). --dir holds its key
and its record of every log's head (state.json): back them up together; a key without its record
is refused. --max-origins bounds the logs it records (a prefix admits any origin under it).`;
const { values } = parseCommandLine(USAGE, {
  name: { type: 'string' },
  log: { type: 'string', multiple: true },
  port: { type: 'string', default: '9380' },
  host: { type: 'string', default: '127.0.0.1' },
  dir: { type: 'string', default: path.join('.data', 'witness') },
  'max-origins': { type: 'string', default: '10000' },
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

/** Whether `file` exists; any error but "no such file" is thrown, never taken for "no". */
const exists = (file: string) =>
  stat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return false;
      throw new WitnessSetupError([
        `--dir: ${file} cannot be read: ${error.code ?? error.message}`,
      ]);
    },
  );

/** The folder held, its record read (created before the key, when neither exists), its key. */
async function openWitnessDir() {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const lock = await lockDirectory(dir, 'witness.lock', '--dir');
  process.on('exit', () => lock.release());
  const [hasKey, hasState] = [await exists(keyFile), await exists(stateFile)];
  if (hasKey && !hasState) {
    throw new WitnessSetupError([
      `--dir ${dir}: witness.key is there without state.json, the record of what it cosigned; with an empty record it would cosign a fork. Put back the state.json it last wrote, or retire this key (a new --dir, and a new key for the reviewers)`,
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
    throw new WitnessSetupError([
      `--name ${values.name}: this witness's key in ${dir} is named ${key.name}`,
    ]);
  }
  return { key, state: await openStateFile(stateFile, Number(values['max-origins'])) };
}

const { key: witness, state } = await openWitnessDir().catch(exitOnSetupError);

const logs = {
  get(origin: string): NoteVerifier | undefined {
    const known = exact.get(origin);
    if (known) return known;
    const prefix = prefixes.find(([start]) => origin.startsWith(start));
    if (!prefix) return undefined;
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
      witness,
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
await listen(server, Number(values.port), values.host!, '--host/--port').catch(exitOnSetupError);
console.log(
  `witness ${witness.name} on ${values.host}:${values.port}, cosigning ${[...exact.keys(), ...prefixes.map(([p]) => `${p}*`)].join(', ')}`,
);
console.log(`its verifier key: ${verifierKeyText(witness)}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
