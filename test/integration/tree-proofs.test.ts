import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { writeCheckpoints } from '../../src/audit-trail/audit-checkpoints.js';
import {
  loadAuditSigningKey,
  signCheckpoint,
  type AuditKey,
} from '../../src/audit-trail/audit-key.js';
import { redactEvent } from '../../src/audit-trail/redaction.js';
import { sealChain } from '../../src/audit-trail/seal-chain.js';
import { signTreeHead, treeOrigin, treeVerifierKey } from '../../src/audit-trail/tree-heads.js';
import { parseCheckpointText } from '../../src/transparency/checkpoint.js';
import { leafHash, verifyConsistency, verifyInclusion } from '../../src/transparency/merkle.js';
import { openNote, parseVerifierKey } from '../../src/transparency/signed-note.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../support/test-service.js';

const SPACE = 'proofs-space';
const run = promisify(execFile);
let service: TestService;
let auditKey: AuditKey;
let credential: { client_id: string; client_secret: string };
let vkey: string;
let asUser: Record<string, string>;

/** What the projector does: seal what settled, then sign the heads (tree heads included). */
async function settle() {
  while ((await sealChain(service.database.db, 500, redactEvent)) > 0);
  await writeCheckpoints(service.database.db, (s) => signCheckpoint(auditKey, s), {
    signTreeHead: (spaceId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, spaceId), size, root),
  });
}
const get = async (url: string) => {
  const response = await fetch(`${service.baseUrl}${url}`, { headers: asUser });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  service = await startTestService();
  auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  credential = await createCredentialVia(service, SPACE);
  asUser = {
    authorization: `Bearer ${await service.loginToken([SPACE])}`,
    'x-service-space-id': SPACE,
  };
  // Known independently of any answer: the audit key's public half, named for the space's origin.
  vkey = treeVerifierKey(auditKey, treeOrigin(service.config.TOKEN_ISSUER, SPACE));
});

describe("a space's transparency log, questioned one token at a time", () => {
  it('proves that a token was issued and recorded: its entry is in the tree the signed head names', async () => {
    const tokens = [];
    for (let i = 0; i < 5; i += 1) tokens.push(await privateTokenVia(service, credential));
    await settle();
    const head = await get('/v1/audit/tree-head');
    expect(head.status).toBe(200);
    expect(head.body.verifier_key).toBe(vkey);
    const text = openNote(String(head.body.checkpoint), parseVerifierKey(vkey));
    expect(text).toBeDefined();
    const checkpoint = parseCheckpointText(text!);
    expect(checkpoint).toMatchObject({
      origin: 'token-authority.test/audit/space/proofs-space',
      size: 6,
    });

    const jti = String(decodeJwt(tokens[2]!).jti);
    const proof = await get(`/v1/audit/proof/inclusion?jti=${jti}`);
    expect(proof.status).toBe(200);
    const entry = String(proof.body.entry);
    expect(JSON.parse(entry)).toMatchObject({
      event_type: 'private-token-issued',
      stream_id: `token-${jti}`,
    });
    expect(proof.body.leaf_hash).toBe(leafHash(Buffer.from(entry)).toString('base64'));
    const byId = await get(
      `/v1/audit/proof/inclusion?event_id=${(JSON.parse(entry) as { event_id: string }).event_id}`,
    );
    expect(byId.body).toMatchObject({ leaf_index: proof.body.leaf_index, entry });
    const path_ = (proof.body.proof as string[]).map((hash) => Buffer.from(hash, 'base64'));
    expect(
      verifyInclusion(
        leafHash(Buffer.from(entry)),
        Number(proof.body.leaf_index),
        checkpoint.size,
        path_,
        checkpoint.root,
      ),
    ).toBe(true);
    expect(
      verifyInclusion(
        leafHash(Buffer.from(entry.replace(jti, 'x'))),
        Number(proof.body.leaf_index),
        checkpoint.size,
        path_,
        checkpoint.root,
      ),
    ).toBe(false);

    // The same check offline, by the command a reviewer runs; an edited entry fails it.
    const file = path.join(service.dataDir, 'inclusion.json');
    await writeFile(file, JSON.stringify(proof.body));
    const ok = await run(process.execPath, [
      '--import',
      'tsx',
      'src/cli/verify-proof.ts',
      file,
      `--key=${vkey}`,
    ]);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, proof: 'inclusion', tree_size: 6 });
    await writeFile(
      file,
      JSON.stringify({
        ...proof.body,
        entry: entry.replace('private-token-issued', 'public-token-issued'),
      }),
    );
    const edited = (await run(process.execPath, [
      '--import',
      'tsx',
      'src/cli/verify-proof.ts',
      file,
      `--key=${vkey}`,
    ]).catch((error: { code: number; stdout: string }) => error)) as {
      code?: number;
      stdout: string;
    };
    expect(edited.code).toBe(1);
    expect(JSON.parse(edited.stdout)).toMatchObject({ ok: false });
  });

  it('proves that nothing recorded before an earlier head was changed by a later one', async () => {
    const before = await get('/v1/audit/tree-head');
    for (let i = 0; i < 7; i += 1) await privateTokenVia(service, credential);
    await settle();
    const after = await get('/v1/audit/tree-head');
    const key = parseVerifierKey(vkey);
    const older = parseCheckpointText(openNote(String(before.body.checkpoint), key)!);
    const newer = parseCheckpointText(openNote(String(after.body.checkpoint), key)!);
    expect(newer.size).toBeGreaterThan(older.size);
    const proof = await get(`/v1/audit/proof/consistency?from=${older.size}&to=${newer.size}`);
    expect(proof.status).toBe(200);
    const hashes = (proof.body.proof as string[]).map((hash) => Buffer.from(hash, 'base64'));
    expect(verifyConsistency(older.size, newer.size, hashes, older.root, newer.root)).toBe(true);
    expect(verifyConsistency(older.size, newer.size, hashes, Buffer.alloc(32, 1), newer.root)).toBe(
      false,
    );
  });

  it('records every proof asked for as an audit read, and answers bad questions with a 4xx that says why', async () => {
    expect((await get('/v1/audit/proof/inclusion')).status).toBe(400);
    expect(
      (await get('/v1/audit/proof/inclusion?jti=a&event_id=0190a0a0-0000-7000-8000-000000000000'))
        .status,
    ).toBe(400);
    const unknown = await get('/v1/audit/proof/inclusion?jti=no-such-token');
    expect(unknown.status).toBe(404);
    expect((await get('/v1/audit/proof/consistency?from=5&to=2')).status).toBe(400);
    expect((await get('/v1/audit/proof/consistency?from=1&to=999999')).status).toBe(400);
    const reads = await get('/v1/audit/events?event_type=audit-log-read&limit=100');
    const kinds = (
      reads.body.items as Array<{ data?: { kind?: string } } & Record<string, unknown>>
    ).map((item) => JSON.stringify(item));
    expect(kinds.some((item) => item.includes('inclusion-proof'))).toBe(true);
    expect(kinds.some((item) => item.includes('consistency-proof'))).toBe(true);
    expect(kinds.some((item) => item.includes('tree-head'))).toBe(true);
  });
});
