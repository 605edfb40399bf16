import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { decodeJwt } from 'jose';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAuditSigningKey, type AuditKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import {
  LOG_TREE,
  signTreeHead,
  treeOrigin,
  treeVerifierKey,
} from '#audit-log/transparency/tree-head.js';
import { afterFile } from '../../support/after-file.js';
import { buildGoTiles } from '../../support/go-tiles.js';
import { readTlogProof } from '../../support/tlog-proof-reader.js';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 67, item 1: the log tree as public C2SP tlog-tiles, read by code nobody here wrote (Go's
 * golang.org/x/mod/sumdb/tlog and sumdb/note) and by a reader written from the spec in this
 * file (node:crypto alone), each refusing a tampered tile or checkpoint.
 */
const clock = { pinned: undefined as number | undefined, now: () => clock.pinned ?? Date.now() };
let service: TestService;
let auditKey: AuditKey;
let logKey: string;
let goTiles: Awaited<ReturnType<typeof buildGoTiles>>;

beforeAll(async () => {
  goTiles = await buildGoTiles();
  service = await startTestService({}, undefined, undefined, { clock });
  auditKey = await loadAuditSigningKey(undefined, service.dataDir);
  logKey = treeVerifierKey(auditKey, treeOrigin(service.config.TOKEN_ISSUER, LOG_TREE));
}, 300_000);

/** The projector's work: seal what settled, sign every tree's head. */
async function settle() {
  while ((await sealLog(service.database.db, 500)) > 0);
  await signTreeHeads(service.database.db, (treeId, size, root) =>
    signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, treeId), size, root),
  );
}

/** Issues `count` tokens, seals and signs, then moves the API's clock past the head's window. */
async function grow(count: number) {
  const credential = await createCredentialVia(service, 'tiles-space');
  for (let i = 0; i < count; i += 1) await privateTokenVia(service, credential);
  await settle();
  grown += 1;
  clock.pinned = Date.now() + 10 * grown * service.config.AUDIT_CHECKPOINT_INTERVAL_SECONDS * 1000;
}
let grown = 0;

const prefix = () => `${service.baseUrl}/audit/log`;
const sha256 = (...parts: Buffer[]) => createHash('sha256').update(Buffer.concat(parts)).digest();

/** RFC 9162 §2.1.1's MTH over leaf hashes, written from the RFC: largest power of two below n. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 1) return leaves[0]!;
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return sha256(Buffer.from([1]), mth(leaves.slice(0, k)), mth(leaves.slice(k)));
}

/** The spec-only reader's verdict on a token's receipt: verified, and its entry that token's. */
const specCheck = (receipt: string, policy: string, jti: string) =>
  readTlogProof(receipt, policy)?.stream_id === `token-${jti}`;

const hashesOf = (tile: Buffer) =>
  Array.from({ length: tile.length / 32 }, (_, i) => tile.subarray(i * 32, i * 32 + 32));

describe('the log tree as public tiles (C2SP tlog-tiles, issue 67)', () => {
  it("is read by Go's tlog: the tiles make the checkpoint's root, inclusion and consistency verify", async () => {
    await grow(150);
    const older = await fetch(`${prefix()}/checkpoint`);
    expect(older.status).toBe(200);
    expect(older.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(older.headers.get('cache-control')).toBe('public, max-age=5');
    const olderFile = path.join(service.dataDir, 'older.checkpoint');
    await writeFile(olderFile, await older.text());
    await grow(200);

    const go = await goTiles([prefix(), logKey, olderFile]);
    expect(go.out.reason).toBeUndefined();
    expect(go.status).toBe(0);
    const size = Number(go.out.size);
    expect(size).toBeGreaterThan(256);
    expect(go.out).toMatchObject({ ok: true, inclusion_checked: [0, size - 1] });
    expect(go.out.consistent_with).toBeLessThan(size);
  }, 180_000);

  it('is read from the spec alone: level-0 tiles hash to the root, level 1 holds their roots', async () => {
    const note = await (await fetch(`${prefix()}/checkpoint`)).text();
    const [origin, sizeLine, rootLine] = note.split('\n');
    expect(origin).toBe('token-authority.test/audit/log');
    const size = Number(sizeLine);
    const path0 = (n: number, width = 256) =>
      `${prefix()}/tile/0/${String(n).padStart(3, '0')}${width < 256 ? `.p/${width}` : ''}`;
    const full = await fetch(path0(0));
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('application/octet-stream');
    expect(full.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const first = Buffer.from(await full.arrayBuffer());
    expect(first.length).toBe(256 * 32);
    const rest = Buffer.from(await (await fetch(path0(1, size - 256))).arrayBuffer());
    const leaves = [...hashesOf(first), ...hashesOf(rest)];
    expect(leaves).toHaveLength(size);
    expect(mth(leaves).toString('base64')).toBe(rootLine);
    const level1 = Buffer.from(await (await fetch(`${prefix()}/tile/1/000.p/1`)).arrayBuffer());
    expect(level1).toEqual(mth(hashesOf(first)));
  });

  it('serves nothing past the published checkpoint, nothing spelled otherwise, and no entries', async () => {
    const size = Number((await (await fetch(`${prefix()}/checkpoint`)).text()).split('\n')[1]);
    const beyond = await fetch(`${prefix()}/tile/0/001`); // a full tile 1 needs 512 leaves
    expect(size).toBeLessThan(512);
    expect(beyond.status).toBe(404);
    expect(beyond.headers.get('cache-control')).not.toContain('immutable');
    for (const spelled of [
      '0/x000/000',
      '0/0',
      '0/000.p/256',
      '0/000.p/0',
      '9/000',
      'entries/000',
    ]) {
      expect((await fetch(`${prefix()}/tile/${spelled}`)).status, spelled).toBe(404);
    }
    expect((await fetch(`${prefix()}/tile/0/001.p/${size - 256 + 1}`)).status).toBe(404);
  });

  it('is refused by both readers when a tile or the checkpoint was tampered with', async () => {
    // A proxy between the monitor and the log that flips one bit of tile 0, or of the root.
    let tamper: 'tile' | 'checkpoint' = 'tile';
    const proxy = http.createServer(async (request, response) => {
      const upstream = await fetch(`${service.baseUrl}${request.url}`);
      let body = Buffer.from(await upstream.arrayBuffer());
      if (tamper === 'tile' && request.url === '/audit/log/tile/0/000') {
        body = Buffer.from(body);
        body[40] = body[40]! ^ 1;
      }
      if (tamper === 'checkpoint' && request.url === '/audit/log/checkpoint') {
        const [origin, size, root, ...signed] = body.toString().split('\n');
        const flipped = Buffer.from(root!, 'base64');
        flipped[0] = flipped[0]! ^ 1;
        body = Buffer.from([origin, size, flipped.toString('base64'), ...signed].join('\n'));
      }
      response.writeHead(upstream.status, {
        'content-type': upstream.headers.get('content-type')!,
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    afterFile(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    const proxied = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/audit/log`;

    const tile = await goTiles([proxied, logKey]);
    expect(tile.status).toBe(1);
    // Go's tile hash reader checks each tile against the checkpoint before using it.
    expect(String(tile.out.reason)).toMatch(/invalid transparency proof/);
    const note = await (await fetch(`${proxied}/checkpoint`)).text();
    const [, sizeLine, rootLine] = note.split('\n');
    const size = Number(sizeLine);
    const tampered = Buffer.from(await (await fetch(`${proxied}/tile/0/000`)).arrayBuffer());
    const rest = Buffer.from(
      await (await fetch(`${proxied}/tile/0/001.p/${size - 256}`)).arrayBuffer(),
    );
    expect(mth([...hashesOf(tampered), ...hashesOf(rest)]).toString('base64')).not.toBe(rootLine);

    tamper = 'checkpoint';
    const checkpoint = await goTiles([proxied, logKey]);
    expect(checkpoint.status).toBe(1);
    expect(String(checkpoint.out.reason)).toMatch(/verif|signature/i);
  }, 60_000);

  it("gives a token's holder its receipt, checked offline against the published policy by verify-proof and by a reader written from the spec", async () => {
    const credential = await createCredentialVia(service, 'receipt-space');
    const token = await privateTokenVia(service, credential);
    const { jti } = decodeJwt(token);
    const receiptOf = (bearer: string) =>
      fetch(`${service.baseUrl}/v1/token/receipt`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    const pending = await receiptOf(token);
    expect(pending.status).toBe(404);
    expect(await pending.text()).toContain('not yet in a published checkpoint');
    expect((await receiptOf(`${token.slice(0, -4)}AAAA`)).status).toBe(401);
    const bought = await (
      await service.post(
        '/v1/issue',
        { customer_id: 'c-1', segment_id: 'vip' },
        { authorization: `Bearer ${token}`, 'x-service-space-id': 'receipt-space' },
      )
    ).json();
    const publicToken = (bought as { token: string }).token;
    await grow(1);
    // A public token's bearer gets none: its receipt shows the buyer's request metadata.
    expect((await receiptOf(publicToken)).status).toBe(401);
    const other = await privateTokenVia(
      service,
      await createCredentialVia(service, 'receipt-space'),
    );
    const publicJti = String(decodeJwt(publicToken).jti);
    const ofPublic = (bearer: string) =>
      fetch(`${service.baseUrl}/v1/token/receipt?jti=${publicJti}`, {
        headers: { authorization: `Bearer ${bearer}` },
      });
    expect((await ofPublic(other)).status).toBe(404);
    const publicReceipt = await ofPublic(token);
    expect(publicReceipt.status).toBe(200);
    const publicEntry = JSON.parse(
      Buffer.from((await publicReceipt.text()).split('\n')[1]!.slice(6), 'base64').toString(),
    ) as { event_type: string; stream_id: string };
    expect(publicEntry).toMatchObject({
      event_type: 'public-token-issued',
      stream_id: `token-${publicJti}`,
    });
    const answer = await receiptOf(token);
    expect(answer.status).toBe(200);
    const receipt = await answer.text();
    const policy = await (await fetch(`${prefix()}/policy`)).text();
    expect(policy).toBe(`log ${logKey} ${service.config.TOKEN_ISSUER}/audit/log\nquorum none\n`);

    // Our verifier, as a reviewer runs it.
    const files = {
      receipt: path.join(service.dataDir, 'token.tlog-proof'),
      policy: path.join(service.dataDir, 'policy.txt'),
    };
    await writeFile(files.receipt, receipt);
    await writeFile(files.policy, policy);
    const check = async (jtiArg = String(jti)) =>
      promisify(execFile)(process.execPath, [
        '--import',
        'tsx',
        'src/cli/verify-proof.ts',
        files.receipt,
        `--policy=${files.policy}`,
        `--jti=${jtiArg}`,
      ]).then(
        (ok) => ({ status: 0, out: JSON.parse(ok.stdout) as Record<string, unknown> }),
        (error: { code: number; stdout: string }) => ({
          status: error.code,
          out: JSON.parse(error.stdout) as Record<string, unknown>,
        }),
      );
    const checked = await check();
    expect(checked).toMatchObject({
      status: 0,
      out: { ok: true, proof: 'tlog-proof', origin: 'token-authority.test/audit/log' },
    });
    expect((await check('another-token')).out).toMatchObject({
      ok: false,
      reason: 'another_entry',
    });

    // A reader written from the C2SP and RFC 9162 texts alone.
    expect(specCheck(receipt, policy, String(jti))).toBe(true);
    const lines = receipt.split('\n');
    const proofLine = lines.findIndex((line) => line.startsWith('index ')) + 1;
    const flipped = Buffer.from(lines[proofLine]!, 'base64');
    flipped[0] = flipped[0]! ^ 1;
    const tampered = [
      ...lines.slice(0, proofLine),
      flipped.toString('base64'),
      ...lines.slice(proofLine + 1),
    ].join('\n');
    expect(specCheck(tampered, policy, String(jti))).toBe(false);
    await writeFile(files.receipt, tampered);
    expect((await check()).out).toMatchObject({ ok: false, reason: 'not_included' });
  }, 60_000);
});
