import { cosignedAt } from '../transparency/cosignature.js';
import type { Hash } from '../transparency/merkle.js';
import type { NoteVerifier } from '../transparency/signed-note.js';
import type { SignedTreeHead } from '../transparency/tree-head.js';
import { readWitnessAnswer, WITNESS_ANSWER_LIMIT } from './answer.js';
import type { WitnessEndpoint } from './endpoints.js';

/** What the witness client reads and keeps of a log, in the log's own storage. */
export interface WitnessLedger {
  /** The largest size of the tree that `witness` (its key name) has cosigned (0 when none). */
  cosignedSize(treeId: string, witness: string): Promise<number>;
  /** Whether the log signed a head of the tree of exactly `size` leaves. */
  signedHead(treeId: string, size: number): Promise<boolean>;
  /** The consistency proof of the tree from `from` leaves to `to`. */
  proveConsistency(treeId: string, from: number, to: number): Promise<Hash[]>;
  /** Keeps a witness's cosignature line on a head (one kept already stays). */
  keepCosignature(head: SignedTreeHead, witness: string, line: string): Promise<void>;
}

/** What the client logs: pino's logger fits it, as does console-like anything. */
export interface WitnessLog {
  debug(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What became of one head at one witness. */
export type Submission =
  'cosigned' | 'current' | 'superseded' | 'ahead' | 'refused' | 'unreachable';

/** The witness's cosignature line on `note`, of those in `body`; undefined when none verifies. */
function cosignatureIn(body: string, note: string, key: NoteVerifier): string | undefined {
  return body
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => `${line}\n`)
    .find((line) => cosignedAt(`${note}${line}`, key) !== undefined);
}

/**
 * Sends each signed tree head it is given to every witness (C2SP tlog-witness add-checkpoint),
 * with the consistency proof from the size that witness last cosigned, and keeps the
 * cosignatures that verify. Heads wait per witness, coalesced per tree (only a tree's latest is
 * sent), and are sent off the projector's loop; a witness that does not answer is left alone for
 * `backoffMs`, then gets what waits for it, so a quiet tree's last head is not lost to an outage.
 * A witness that refuses a head (422), holds another root of its size (422 from that size; a 409
 * from that size, from a witness of the older text) or has
 * seen a larger tree we never signed is logged as an error: that is what a rewritten or forked
 * history looks like from outside. A head older than one of ours the witness holds is superseded. A witness's answer is read up to WITNESS_ANSWER_LIMIT bytes, never more.
 */
export function startWitnessing(
  ledger: WitnessLedger,
  witnesses: readonly WitnessEndpoint[],
  options: {
    readonly logger: WitnessLog;
    readonly timeoutMs?: number;
    readonly backoffMs?: number;
    readonly now?: () => number;
  },
): { submit(head: SignedTreeHead): void; idle(): Promise<void>; stop(): Promise<void> } {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const backoffMs = options.backoffMs ?? 30_000;
  // Each witness's heads still to send, the latest per tree: bounded by the number of trees.
  const queues = new Map(
    witnesses.map((witness) => [witness.url, new Map<string, SignedTreeHead>()]),
  );
  const known = new Map<string, number>();
  const downUntil = new Map<string, number>();
  let running: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let stopped = false;

  async function cosignedSize(witness: WitnessEndpoint, treeId: string): Promise<number> {
    const cached = known.get(`${witness.url} ${treeId}`);
    if (cached !== undefined) return cached;
    return ledger.cosignedSize(treeId, witness.key.name);
  }

  async function send(witness: WitnessEndpoint, head: SignedTreeHead): Promise<Submission> {
    const log = { witness: witness.key.name, tree: head.treeId || '(log)', size: head.size };
    let old = await cosignedSize(witness, head.treeId);
    if (old === head.size) return 'current';
    for (let attempt = 0; attempt < 2; attempt += 1) {
      if (old > head.size) {
        // A head of ours from before one the witness already holds: a projector that lost the
        // lead after queueing it, or a retry outrun by the next interval. Only a larger tree we
        // never signed is someone else's history.
        if (await ledger.signedHead(head.treeId, old)) {
          logger.debug({ ...log, witnessSize: old }, 'head superseded by a later one of ours');
          return 'superseded';
        }
        logger.error({ ...log, witnessSize: old }, 'witness has cosigned a larger tree than ours');
        return 'ahead';
      }
      // From its own size (learned from a 409) the witness cosigns our head if it holds that root.
      const proof =
        old === 0 || old === head.size
          ? []
          : await ledger.proveConsistency(head.treeId, old, head.size);
      const body = `old ${old}\n${proof.map((hash) => `${hash.toString('base64')}\n`).join('')}\n${head.note}`;
      const response = await fetch(witness.url, {
        method: 'POST',
        headers: { 'content-type': 'text/plain; charset=utf-8' },
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
      const answer = await readWitnessAnswer(response);
      if (!answer.overLimit && response.status === 409 && /^\d+\n?$/.test(answer.text)) {
        const held = Number(answer.text.trim());
        known.set(`${witness.url} ${head.treeId}`, held);
        if (held === old) {
          // It holds the size we sent it from, with another root: a fork of this tree.
          logger.error({ ...log, witnessSize: held }, 'witness holds another root of that size');
          return 'refused';
        }
        old = held;
        continue;
      }
      // C2SP since July 2026: the size it holds, with another root, is a 422.
      if (response.status === 422 && old === head.size) {
        logger.error({ ...log, witnessSize: old }, 'witness holds another root of that size');
        return 'refused';
      }
      const line =
        response.status === 200 && !answer.overLimit
          ? cosignatureIn(answer.text, head.note, witness.key)
          : undefined;
      if (!line) {
        logger.error(
          {
            ...log,
            status: response.status,
            answer: answer.text.slice(0, 200),
            ...(answer.overLimit ? { answerOverBytes: WITNESS_ANSWER_LIMIT } : {}),
          },
          'witness refused the tree head',
        );
        return 'refused';
      }
      await ledger.keepCosignature(head, witness.key.name, line);
      known.set(`${witness.url} ${head.treeId}`, head.size);
      return 'cosigned';
    }
    logger.warn({ ...log, witnessSize: old }, 'witness moved on while the head was sent');
    return 'refused';
  }

  /** The witnesses with heads waiting that are not resting after a failure. */
  const ready = () =>
    witnesses.filter(
      (witness) => queues.get(witness.url)!.size > 0 && (downUntil.get(witness.url) ?? 0) <= now(),
    );

  async function drain(): Promise<void> {
    for (let due = ready(); !stopped && due.length > 0; due = ready()) {
      await Promise.all(
        due.map(async (witness) => {
          const queue = queues.get(witness.url)!;
          const [treeId, head] = queue.entries().next().value!;
          queue.delete(treeId);
          const outcome = await send(witness, head).catch((error: unknown) => {
            logger.warn(
              { err: error, witness: witness.key.name, tree: treeId || '(log)' },
              'witness not reached; sent again later',
            );
            downUntil.set(witness.url, now() + backoffMs);
            // Kept for this witness unless a newer head of the tree came meanwhile.
            if (!queue.has(treeId)) queue.set(treeId, head);
            return 'unreachable' as const;
          });
          if (outcome === 'cosigned')
            logger.debug({ witness: witness.key.name, size: head.size }, 'tree head cosigned');
        }),
      );
    }
  }

  // Heads wait for a resting witness: one timer, for the first rest to end. Set after every
  // drain, not once per failure: a timer that fired a moment before the rest ended (timers and
  // clocks round differently) found nothing ready, and the head then waited for the next one.
  const retryWhenRested = () => {
    if (stopped || retry) return;
    const waits = witnesses
      .filter((witness) => queues.get(witness.url)!.size > 0)
      .map((witness) => (downUntil.get(witness.url) ?? 0) - now());
    if (waits.length === 0) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        kick();
      },
      Math.max(0, Math.min(...waits)) + 1,
    );
    retry.unref();
  };

  const kick = () => {
    running ??= drain().finally(() => {
      running = undefined;
      if (!stopped && ready().length > 0) kick();
      else retryWhenRested();
    });
  };
  return {
    submit(head) {
      if (stopped) return;
      for (const queue of queues.values()) queue.set(head.treeId, head);
      kick();
    },
    async idle() {
      while (running) await running;
    },
    async stop() {
      stopped = true;
      clearTimeout(retry);
      await running;
    },
  };
}
