import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkTlogProof } from '../../src/check/tlog-proof-check.js';
import { checkpointText as formatCheckpoint } from '../../src/transparency/checkpoint.js';
import { cosignatureLine } from '../../src/transparency/cosignature.js';
import { inclusionProof, leafHash, memoryTree, treeRoot } from '../../src/transparency/merkle.js';
import {
  COSIGNATURE_ED25519,
  noteSigner,
  signNote,
  verifierKeyText,
  noteVerifier,
} from '../../src/transparency/signed-note.js';
import { formatTlogPolicy, parseTlogPolicy } from '../../src/transparency/tlog-policy.js';
import { formatTlogProof, parseTlogProof } from '../../src/transparency/tlog-proof.js';

const ORIGIN = 'log.example/audit/log';
const logPair = generateKeyPairSync('ed25519');
const log = noteSigner(ORIGIN, logPair.privateKey);
const logKey = verifierKeyText(noteVerifier(ORIGIN, logPair.publicKey));
const witnessPairs = [1, 2, 3].map(() => generateKeyPairSync('ed25519'));
const witnessKeys = witnessPairs.map((pair, i) =>
  verifierKeyText(noteVerifier(`w${i}.example`, pair.publicKey, COSIGNATURE_ED25519)),
);

const entries = Array.from({ length: 7 }, (_, i) =>
  Buffer.from(JSON.stringify({ stream_id: `token-t${i}`, stream_position: 1 })),
);
const tree = memoryTree(entries.map(leafHash));
const checkpointText = formatCheckpoint({ origin: ORIGIN, size: 7, root: treeRoot(tree, 7) });

/** A receipt of entry `index`, its checkpoint cosigned by the witnesses numbered in `by`. */
function receipt(index: number, by: number[] = []) {
  let note = signNote(checkpointText, [log]);
  for (const i of by) {
    const witness = noteSigner(`w${i}.example`, witnessPairs[i]!.privateKey, COSIGNATURE_ED25519);
    note += cosignatureLine(witness, checkpointText, 1_790_000_000);
  }
  return formatTlogProof({
    extra: entries[index]!,
    index,
    proof: inclusionProof(tree, index, 7),
    checkpoint: note,
  });
}

describe('C2SP tlog-proof and tlog-policy', () => {
  it('writes a proof as the spec lays it out and reads it back', () => {
    const text = receipt(3);
    const lines = text.split('\n');
    expect(lines[0]).toBe('c2sp.org/tlog-proof@v1');
    expect(lines[1]).toMatch(/^extra [A-Za-z0-9+/]+=*$/);
    expect(lines[2]).toBe('index 3');
    const parsed = parseTlogProof(text);
    expect(parsed.index).toBe(3);
    expect(parsed.extra).toEqual(entries[3]);
    expect(parsed.checkpoint.startsWith(`${ORIGIN}\n7\n`)).toBe(true);
    for (const bad of [
      text.replace('c2sp.org/tlog-proof@v1', 'c2sp.org/tlog-proof@v2'),
      text.replace('index 3', 'index 03'),
      text.replace(lines[1]!, `${lines[1]!.replace(/=+$/, '')}`).replace('extra', 'extra'),
      text.replace(lines[3]!, 'not-a-hash'),
      lines.slice(0, 5).join('\n'),
    ]) {
      expect(() => parseTlogProof(bad)).toThrow();
    }
  });

  it('checks a proof against a policy: the log key, the quorum of witnesses, the entry in the tree', () => {
    const none = parseTlogPolicy(formatTlogPolicy({ log: logKey, witnesses: [], quorum: 0 }));
    expect(checkTlogProof(receipt(3), none, { jti: 't3' })).toMatchObject({
      ok: true,
      leaf_index: 3,
      tree_size: 7,
    });
    expect(checkTlogProof(receipt(3), none, { jti: 't4' })).toMatchObject({
      ok: false,
      reason: 'another_entry',
    });
    // The entry swapped for another: not in the tree at that index.
    const swapped = receipt(3).replace(
      entries[3]!.toString('base64'),
      entries[4]!.toString('base64'),
    );
    expect(checkTlogProof(swapped, none)).toMatchObject({ ok: false, reason: 'not_included' });
    const otherLog = generateKeyPairSync('ed25519');
    const stranger = parseTlogPolicy(
      `log ${verifierKeyText(noteVerifier(ORIGIN, otherLog.publicKey))}\nquorum none\n`,
    );
    expect(checkTlogProof(receipt(3), stranger)).toMatchObject({
      ok: false,
      reason: 'checkpoint_not_signed_by_a_policy_log',
    });

    const two = parseTlogPolicy(
      formatTlogPolicy({
        log: logKey,
        witnesses: witnessKeys.map((key, i) => ({ name: `w${i}`, key })),
        quorum: 2,
      }),
    );
    expect(checkTlogProof(receipt(1, [0]), two)).toMatchObject({
      ok: false,
      reason: 'quorum_not_met',
    });
    expect(checkTlogProof(receipt(1, [0, 2]), two)).toMatchObject({
      ok: true,
      cosigned: ['w0', 'w2'],
    });
  });

  it('reads nested groups, and refuses a policy that would count one key twice or names the undefined', () => {
    const policy = parseTlogPolicy(
      [
        `log ${logKey} https://log.example/audit/log`,
        '# two organisations',
        `witness a1 ${witnessKeys[0]}`,
        `witness a2 ${witnessKeys[1]}`,
        `witness b1 ${witnessKeys[2]}`,
        'group A any a1 a2',
        'group AB all A b1',
        'quorum AB',
      ].join('\n'),
    );
    expect(policy.quorumMet(new Set(['a2', 'b1']))).toBe(true);
    expect(policy.quorumMet(new Set(['a1', 'a2']))).toBe(false);
    expect(() =>
      parseTlogPolicy(
        `log ${logKey}\nwitness x ${witnessKeys[0]}\nwitness y ${witnessKeys[0]}\nquorum x\n`,
      ),
    ).toThrow(/listed twice/);
    expect(() => parseTlogPolicy(`log ${logKey}\nquorum nobody\n`)).toThrow(/not defined/);
    expect(() => parseTlogPolicy(`log ${logKey}\n`)).toThrow(/no quorum/);
    expect(() => parseTlogPolicy(`log ${logKey}\ngroup g 3 none\nquorum g\n`)).toThrow();
    // One witness listed twice in a group, or a threshold not written in decimal: refused.
    const w = `witness w ${witnessKeys[0]}\nwitness v ${witnessKeys[1]}\n`;
    expect(() => parseTlogPolicy(`log ${logKey}\n${w}group g 2 w w\nquorum g\n`)).toThrow(
      /already a group member/,
    );
    expect(() => parseTlogPolicy(`log ${logKey}\n${w}group g 0x2 w v\nquorum g\n`)).toThrow(
      /threshold/,
    );
  });
});
