import { parseVerifierKey, type NoteVerifier } from './signed-note.js';
import { distinctWitnesses } from './witness-keys.js';

/**
 * A C2SP tlog-policy (https://c2sp.org/tlog-policy): the logs a verifier accepts, the witnesses it
 * knows, and the quorum of them a checkpoint needs. Groups nest; `none` needs no cosignature.
 */
export interface TlogPolicy {
  readonly logs: readonly NoteVerifier[];
  readonly witnesses: ReadonlyMap<string, NoteVerifier>;
  /** Whether the witnesses that cosigned (by name) meet the quorum. */
  quorumMet(cosigned: ReadonlySet<string>): boolean;
}

/** What a service publishes: its log, its witnesses by name, and how many of them must cosign. */
export function formatTlogPolicy(policy: {
  readonly log: string;
  readonly logUrl?: string;
  readonly witnesses: ReadonlyArray<{ readonly name: string; readonly key: string }>;
  /** Cosignatures needed of the witnesses (0: `quorum none`). */
  readonly quorum: number;
}): string {
  const names = policy.witnesses.map(({ name }) => name);
  return [
    `log ${policy.log}${policy.logUrl ? ` ${policy.logUrl}` : ''}`,
    ...policy.witnesses.map(({ name, key }) => `witness ${name} ${key}`),
    ...(policy.quorum > 0 ? [`group witnesses ${policy.quorum} ${names.join(' ')}`] : []),
    `quorum ${policy.quorum > 0 ? 'witnesses' : 'none'}`,
    '',
  ].join('\n');
}

type Rule = (cosigned: ReadonlySet<string>) => boolean;

/** A policy read from its text, or an error naming the line that does not read. */
export function parseTlogPolicy(text: string): TlogPolicy {
  const logs: NoteVerifier[] = [];
  const witnesses = new Map<string, NoteVerifier>();
  const rules = new Map<string, Rule>([['none', () => true]]);
  // A name is a member of one group at most: else one cosignature would count twice.
  const members = new Set<string>();
  let quorum: Rule | undefined;
  for (const [i, raw] of text.split('\n').entries()) {
    const words = raw.trim().split(/[ \t]+/);
    const fail = (why: string) => new Error(`policy line ${i + 1}: ${why}`);
    if (words[0] === '' || words[0]!.startsWith('#')) continue;
    if (words[0] === 'log' && (words.length === 2 || words.length === 3)) {
      logs.push(parseVerifierKey(words[1]!));
    } else if (words[0] === 'witness' && (words.length === 3 || words.length === 4)) {
      const name = words[1]!;
      if (rules.has(name)) throw fail(`${name} is defined twice`);
      witnesses.set(name, parseVerifierKey(words[2]!));
      rules.set(name, (cosigned) => cosigned.has(name));
    } else if (words[0] === 'group' && words.length >= 4) {
      const [, name, threshold, ...listed] = words as [string, string, string, ...string[]];
      if (rules.has(name)) throw fail(`${name} is defined twice`);
      const parts = listed.map((member) => {
        const rule = member === 'none' ? undefined : rules.get(member);
        if (!rule) throw fail(`${member} is not a witness or group defined above`);
        if (members.has(member)) throw fail(`${member} is already a group member`);
        members.add(member);
        return rule;
      });
      const k = threshold === 'all' ? parts.length : threshold === 'any' ? 1 : Number(threshold);
      const written = /^[1-9][0-9]*$/.test(threshold) || threshold === 'all' || threshold === 'any';
      if (!written || k > parts.length) throw fail(`bad threshold ${threshold}`);
      rules.set(name, (cosigned) => parts.filter((part) => part(cosigned)).length >= k);
    } else if (words[0] === 'quorum' && words.length === 2) {
      if (quorum) throw fail('a second quorum');
      quorum = rules.get(words[1]!);
      if (!quorum) throw fail(`${words[1]} is not defined above`);
    } else {
      throw fail('not a log, witness, group or quorum line');
    }
  }
  if (!quorum) throw new Error('policy: no quorum line');
  // One key listed twice would count as two witnesses toward a threshold.
  if (distinctWitnesses([...witnesses.values()]).length !== witnesses.size) {
    throw new Error('policy: a witness key is listed twice');
  }
  const met = quorum;
  return { logs, witnesses, quorumMet: (cosigned) => met(cosigned) };
}
