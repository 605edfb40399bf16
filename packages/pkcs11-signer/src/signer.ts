import type { JWK } from 'jose';
import type { Pkcs11Errors } from './errors.js';

/** How the event loop's side of the PKCS#11 signer has batched its work so far. */
export interface Pkcs11SignerStats {
  readonly requests: number;
  readonly batches: number;
  readonly largestBatch: number;
  /** Threads ended because a batch outlived the deadline, and replaced by a new login. */
  readonly replaced: number;
  /** Threads still inside an HSM call that outlived its deadline (at most `maxStuckThreads`). */
  readonly stuckThreads: number;
}

/** Whether the signer can sign now; `reason` names why not. */
export type Pkcs11SignerHealth =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'stalled' | 'restarting' | 'stuck' | 'closed' };

/** A key pair the token made: its public half, and what to record of where the private half is. */
export interface Pkcs11GeneratedKey {
  /** The RFC 7638 thumbprint of its public JWK. */
  readonly kid: string;
  readonly alg: string;
  readonly publicJwk: JWK;
  /** Names where the private half lives (the token), never key material. */
  readonly stored: { readonly hsm: 'pkcs11'; readonly token: string };
}

/**
 * Ed25519 keys made and kept in a PKCS#11 token, named by kid and looked up lazily, each
 * signature made off the event loop; and its batching figures.
 */
export interface Pkcs11Signer {
  readonly backend: 'pkcs11';
  /** A new key pair made inside the token; the private half never leaves it. */
  generate(): Promise<Pkcs11GeneratedKey>;
  /** The signature of `signingInput` by key `kid`, counted against `spaceId`'s queue share. */
  sign(kid: string, signingInput: Uint8Array, spaceId: string): Promise<Buffer>;
  /** Destroys both halves of key `kid`: only for a key nobody records. */
  discard(kid: string): Promise<void>;
  /** The public JWK of key `kid`, read from the token; undefined when it holds none. */
  publicJwk(kid: string): Promise<JWK | undefined>;
  /** Whether it can sign now, for readiness: a stalled token or a new login cannot. */
  health(): Pkcs11SignerHealth;
  stats(): Pkcs11SignerStats;
  /** Logs out and ends the thread; what still waits fails as unavailable. */
  close(): Promise<void>;
}

/**
 * The queue requests wait in until a batch takes them: bounded, with a share per space and a
 * deadline per item (past it, the item is handed to `expired`). The user gives it, so that the
 * signer's queue can be the one its other batched writers use.
 */
export interface Pkcs11Queue<Item> {
  /** Queues `item` of `spaceId`; false when the queue or the space's share is full. */
  offer(spaceId: string, item: Item): boolean;
  /** Takes up to `max` of the oldest items. */
  take(max: number): Item[];
  size(): number;
}

/** Makes the signer's queue; `expired` is told the items that waited past the deadline. */
export type Pkcs11QueueFactory = <Item>(
  expired: (items: readonly Item[]) => void,
) => Pkcs11Queue<Item>;

/** Options of openPkcs11Signer. */
export interface Pkcs11SignerOptions {
  /** The queue requests wait in (its bounds and its deadline, `timeoutMs` as a rule). */
  readonly createQueue: Pkcs11QueueFactory;
  /** The space key management (generate, discard, public JWK) counts against in the queue. */
  readonly keySpace: string;
  /** Requests in one message to the thread. */
  readonly maxBatch?: number;
  /** Batches posted and unanswered: two keep the thread busy while one answer travels back. */
  readonly maxInFlightBatches?: number;
  /** A batch (or the login) unanswered this long fails, and its thread is replaced. */
  readonly timeoutMs?: number;
  /** Threads left stuck in the HSM before no new one is started (health: `stuck`); 4 if unset. */
  readonly maxStuckThreads?: number;
  /** The errors to throw; this package's own (errors.ts) when none are given. */
  readonly errors?: Pkcs11Errors;
}
