import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkpointText, parseCheckpointText } from '../../src/transparency/checkpoint.js';
import {
  noteSigner,
  openNote,
  parseSignerKey,
  parseVerifierKey,
  signNote,
  verifierKeyText,
} from '../../src/transparency/signed-note.js';

// The published example of Go's golang.org/x/mod/sumdb/note (its documentation and note_test.go).
const VKEY = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const SKEY = 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz';
const TEXT =
  "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const SIGNED = `${TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('C2SP signed notes, against the Go reference example', () => {
  it('opens the published note with the published verifier key', () => {
    expect(openNote(SIGNED, parseVerifierKey(VKEY))).toBe(TEXT);
  });

  it('signs the published text byte for byte as the reference does, and names the key the same', () => {
    const signer = parseSignerKey(SKEY);
    expect(signNote(TEXT, [signer])).toBe(SIGNED);
    expect(verifierKeyText(signer)).toBe(VKEY);
  });

  it('refuses an edited text, a signature by another key of the same name, and a mangled key', () => {
    const verifier = parseVerifierKey(VKEY);
    expect(openNote(SIGNED.replace('answer', 'Answer'), verifier)).toBeUndefined();
    const impostor = noteSigner('PeterNeumann', generateKeyPairSync('ed25519').privateKey);
    expect(openNote(signNote(TEXT, [impostor]), verifier)).toBeUndefined();
    expect(() => parseVerifierKey(VKEY.replace('c74f20a3', 'c74f20a4'))).toThrow(
      /id does not match/,
    );
    expect(() => parseVerifierKey(VKEY.slice(0, -2))).toThrow();
  });

  it('keeps a checkpoint as C2SP writes it (the spec example) and refuses a padded size', () => {
    const text =
      'example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n';
    const checkpoint = parseCheckpointText(text);
    expect(checkpoint).toMatchObject({ origin: 'example.com/behind-the-sofa', size: 20852163 });
    expect(checkpointText(checkpoint)).toBe(text);
    expect(() => parseCheckpointText(text.replace('20852163', '020852163'))).toThrow();
  });
});
