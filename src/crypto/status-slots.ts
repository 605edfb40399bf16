import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { STATUS_LIST_PERIOD_SECONDS } from '../domain/status-list/decide.js';

/** A token's entry in its space's status list: the list's id and the index in it. */
export interface StatusSlot {
  readonly list: string;
  readonly idx: number;
}

/** Hands out status-list entries for this process's tokens: never the same one twice. */
export interface StatusSlots {
  /**
   * An entry for a token of `spaceId` signed by its own ring (`own`) or the shared one; none
   * when the operator turned the lists off (`TOKEN_STATUS_LIST=false`).
   */
  take(spaceId: string, now: number, own: boolean): StatusSlot | undefined;
  /**
   * The ring `list`'s tokens were signed by, which signs the list too, when a replica holding the
   * same key opened it for `spaceId`; undefined for any other id (no query asked).
   */
  ringOf(spaceId: string, list: string): 'own' | 'shared' | undefined;
}

/** Entries per list, every list padded to it: 2^16 one-bit entries, 8 KiB before compression. */
export const STATUS_LIST_SIZE = 1 << 16;
const HALF_BITS = 8;
const HALF = (1 << HALF_BITS) - 1;
const ROUNDS = 4;
// A list takes tokens issued within an hour, so its entries all expire about together.
const LIST_PERIOD_MS = STATUS_LIST_PERIOD_SECONDS * 1000;
const SPACES_HELD = 10_000;

interface OpenList {
  readonly id: string;
  readonly period: number;
  /** One random byte table per Feistel round: the list's own permutation of its indexes. */
  readonly rounds: Uint8Array;
  taken: number;
}

/**
 * Each process fills lists of its own, each under a fresh random id: no row is claimed, no other
 * process asked, so issuance takes no lock (issue 65). An index is the list's counter through a
 * keyed permutation, so indexes say nothing of how many tokens came before, and each list is
 * served at its full size whatever it holds. A full list, or a new hour, opens another; a list
 * is never reopened, so an index is never reused.
 */
export function createStatusSlots(secretKey: Buffer, listed = true): StatusSlots {
  // Per ring, by space: a list holds one ring's tokens, and a token's lookup builds no key string.
  const opened = { own: new Map<string, OpenList>(), shared: new Map<string, OpenList>() };
  // A list's id is 8 random bytes and 8 of their MAC with the space: any replica tells a list it
  // could have opened from a made-up or another space's id without asking the database.
  const key = createHmac('sha256', secretKey).update('status-list-id').digest();
  const tag = (spaceId: string, random: Buffer) =>
    createHmac('sha256', key).update(spaceId).update('\0').update(random).digest().subarray(0, 8);
  return {
    ringOf(spaceId, list) {
      const bytes = Buffer.from(list, 'base64url');
      if (bytes.length !== 16 || bytes.toString('base64url') !== list) return undefined;
      if (!timingSafeEqual(tag(spaceId, bytes.subarray(0, 8)), bytes.subarray(8))) return undefined;
      return bytes[0]! & 1 ? 'own' : 'shared';
    },
    take(spaceId, now, own) {
      if (!listed) return undefined;
      const period = Math.floor(now / LIST_PERIOD_MS);
      const open = own ? opened.own : opened.shared;
      let list = open.get(spaceId);
      if (!list || list.period !== period || list.taken >= STATUS_LIST_SIZE) {
        const bytes = randomBytes(8 + ROUNDS * 256);
        const random = bytes.subarray(0, 8);
        random[0] = (random[0]! & 0xfe) | (own ? 1 : 0);
        list = {
          id: Buffer.concat([random, tag(spaceId, random)]).toString('base64url'),
          period,
          rounds: bytes.subarray(8),
          taken: 0,
        };
        open.delete(spaceId);
        open.set(spaceId, list);
        // The least recently opened go first: a space seen again opens a new list, no harm.
        if (open.size > SPACES_HELD) open.delete(open.keys().next().value!);
      }
      return { list: list.id, idx: permuted(list.rounds, list.taken++) };
    },
  };
}

/** A balanced Feistel network over 16 bits: a bijection whatever the tables hold. */
function permuted(rounds: Uint8Array, value: number): number {
  let left = value >>> HALF_BITS;
  let right = value & HALF;
  for (let round = 0; round < ROUNDS; round++) {
    const next = left ^ rounds[round * 256 + right]!;
    left = right;
    right = next;
  }
  return (left << HALF_BITS) | right;
}
