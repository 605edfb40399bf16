import {
  COSIGNATURE_ED25519,
  parseVerifierKey,
  type NoteVerifier,
} from '../transparency/signed-note.js';

/** A witness a log sends signed tree heads to, and the key its cosignatures carry. */
export interface WitnessEndpoint {
  /** Its add-checkpoint URL (C2SP tlog-witness). */
  readonly url: string;
  readonly key: NoteVerifier;
}

/** A list of witnesses that does not read: `problem` names the entry and what is wrong. */
export class WitnessListError extends Error {
  constructor(readonly problem: string) {
    super(problem);
    this.name = 'WitnessListError';
  }
}

/**
 * A list of witnesses, `<add-checkpoint URL> <witness verifier key>` comma-separated (empty: none).
 * Throws a WitnessListError naming `setting` and the entry.
 */
export function parseWitnesses(list: string | undefined, setting: string): WitnessEndpoint[] {
  if (!list?.trim()) return [];
  return list.split(',').map((entry, i) => {
    const [url, vkey, ...rest] = entry.trim().split(/\s+/);
    const problem = (why: string) =>
      new WitnessListError(`${setting}: entry ${i + 1} ("${entry.trim()}"): ${why}`);
    if (!url || !vkey || rest.length > 0) throw problem('expected "<URL> <verifier key>"');
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw problem('expected an http(s) URL first');
    }
    let key: NoteVerifier;
    try {
      key = parseVerifierKey(vkey);
    } catch (error) {
      throw problem((error as Error).message);
    }
    if (key.type !== COSIGNATURE_ED25519)
      throw problem('a witness key has type 0x04 (cosignature/v1)');
    return { url, key };
  });
}
