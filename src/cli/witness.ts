/**
 * `npm run witness -- --name=<witness name> --log=<origin>=<log vkey> [--log=…] [--port=9380]
 *   [--dir=.data/witness]` (an origin ending in `*` is a prefix: every space tree of one log key)
 * An independent witness (C2SP tlog-witness): cosigns a log's checkpoint only when it extends,
 * by a consistency proof, the one it cosigned before. Its own key and its own record of each log's
 * latest tree head live in --dir, which only the witness should be able to write; run it where
 * the log's operators cannot reach, or it witnesses nothing.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { readOrCreateFile } from '../config/data-files.js';
import { secondsOf } from '../domain/times.js';
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
import { addCheckpoint, type TreeHead, type WitnessState } from '../transparency/witness.js';
import { parseCommandLine } from './args.js';

const USAGE = `Usage: npm run witness -- --name=<witness name> --log=<origin>=<log vkey> [--log=...] [--port=9380] [--dir=.data/witness]
Cosigns checkpoints of the logs named (C2SP tlog-witness, POST /add-checkpoint); an origin ending
in * names every origin it starts (each space's tree: --log='<host>/audit/space/*=<vkey>'). Prints its own
verifier key (give it to whoever checks cosignatures: verify-proof --witness).`;
const { values } = parseCommandLine(USAGE, {
  name: { type: 'string' },
  log: { type: 'string', multiple: true },
  port: { type: 'string', default: '9380' },
  dir: { type: 'string', default: path.join('.data', 'witness') },
});
if (!values.name || !values.log?.length || !/^\d+$/.test(values.port!)) {
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
await mkdir(dir, { recursive: true, mode: 0o700 });
const witness = parseSignerKey(
  await readOrCreateFile(path.join(dir, 'witness.key'), () =>
    signerKeyText(
      noteSigner(values.name!, generateKeyPairSync('ed25519').privateKey, COSIGNATURE_ED25519),
    ),
  ),
);
if (witness.name !== values.name) {
  console.error(`--name ${values.name}: this witness's key in ${dir} is named ${witness.name}`);
  process.exit(2);
}

/** Each log's latest cosigned head in one JSON file, replaced whole (write aside, rename). */
async function fileState(file: string): Promise<WitnessState> {
  const stored = JSON.parse(await readFile(file, 'utf8').catch(() => '{}')) as Record<
    string,
    { size: number; root: string }
  >;
  const heads = new Map<string, TreeHead>(
    Object.entries(stored).map(([origin, head]) => [
      origin,
      { size: head.size, root: Buffer.from(head.root, 'base64') },
    ]),
  );
  let tail: Promise<unknown> = Promise.resolve();
  return {
    latest: async (origin) => heads.get(origin),
    // Serialised, and persisted before it answers: the check and the update are one step.
    advance: (origin, expectedSize, next) => {
      const run = tail.then(async () => {
        if ((heads.get(origin)?.size ?? 0) !== expectedSize) return false;
        const all = Object.fromEntries(
          [...heads, [origin, next] as const].map(([name, head]) => [
            name,
            { size: head.size, root: head.root.toString('base64') },
          ]),
        );
        await writeFile(`${file}.tmp`, JSON.stringify(all), { mode: 0o600 });
        await rename(`${file}.tmp`, file);
        heads.set(origin, next);
        return true;
      });
      tail = run.catch(() => undefined);
      return run;
    },
  };
}

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
const state = await fileState(path.join(dir, 'state.json'));
const server = createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/add-checkpoint') {
    response.writeHead(404, { 'content-type': 'text/plain' }).end('POST /add-checkpoint\n');
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
      nowSeconds: () => secondsOf(Date.now()),
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
server.listen(Number(values.port), () => {
  console.log(
    `witness ${witness.name} on :${values.port}, cosigning ${[...exact.keys(), ...prefixes.map(([p]) => `${p}*`)].join(', ')}`,
  );
  console.log(`its verifier key: ${verifierKeyText(witness)}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
