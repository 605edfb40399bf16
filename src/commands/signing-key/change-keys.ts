import {
  decideFirstKey,
  decideRetireKey,
  decideRotateKey,
  type KeyCommand,
} from '../../domain/signing-key/decide.js';
import type { KeyRing } from '../../domain/signing-key/state.js';
import type { KeyRingStore } from './key-ring-store.js';
import type { KeyEncryptionKey } from '../../crypto/key-encryption.js';
import type { GeneratedSigningKey } from '../../crypto/token-signer.js';
import { handleLocked } from '../handle.js';
import { KeyNeeded, ringDecider, type RingDecision } from './ring-decider.js';
import { sealKeysInTheClear } from './reseal.js';
import { SERVICE_ACTOR, type KeyActor } from './actor.js';
import { discardUnrecorded, makerOf, type KeyMaker, type KeyMakerOf } from './key-maker.js';

/**
 * Runs one signing-key decision through {@link handleLocked} on the ring ({@link ringDecider}):
 * under the key-ring lock, read the ring, decide, append each event as its own stream and write
 * the ring `evolve` makes of them, all in one transaction. One lock for every ring: key changes
 * are rare, and a ring's decision then never races another's.
 *
 * A key is made only when the decision adds one, and outside the transaction (which then waits on
 * no HSM): decided without one first, the decision is taken again with the new key. A key made
 * for a decision that, taken again, needs none (another process changed the ring meanwhile), or
 * for a change that failed, is destroyed: nothing this leaves in the HSM is unrecorded. A ring
 * that needs nothing (a space already enabled, a start, a rotation not due) never reaches the HSM.
 */
export async function changeKeys<Result>(
  events: KeyRingStore,
  keyMaker: KeyMaker,
  actor: KeyActor,
  decide: RingDecision<Result>,
  spaceId: string | null = null,
): Promise<Result> {
  const maker = makerOf(keyMaker);
  let material: GeneratedSigningKey | undefined;
  try {
    for (;;) {
      const outcome = await handleLocked(
        events,
        ringDecider(decide, spaceId, material),
        actor,
        async (_writes, done) => done.facts,
      ).catch((error: unknown) => {
        // Nothing written: the transaction ended, the key is made outside it, the ring read again.
        if (error instanceof KeyNeeded) return undefined;
        throw error;
      });
      if (!outcome) {
        // Only a first pass (no key at hand) asks for one.
        material = await maker.generate();
        continue;
      }
      if (material && !outcome.usedKey) await maker.discard(material.kid);
      return outcome.result;
    }
  } catch (error) {
    if (material) await discardUnrecorded(events, maker, material.kid);
    throw error;
  }
}

/**
 * At every API process's start: seals any private key still stored in the clear, then generates
 * the first signing key, signing at once, unless one is published.
 */
export async function ensureFirstSigningKey(
  events: KeyRingStore,
  kek: KeyEncryptionKey,
  keyMaker: KeyMaker = kek,
): Promise<void> {
  await sealKeysInTheClear(events, kek, SERVICE_ACTOR);
  await changeKeys(events, keyMaker, SERVICE_ACTOR, (command, ring) => ({
    events: decideFirstKey(command, ring).events,
    result: undefined,
  }));
}

/**
 * Rotation in a single call: a new key published at once and signing `activateInSeconds` from
 * now; the keys it replaces leave the JWKS `retireAfterSeconds` after that. Returns the new key.
 */
export async function rotateSigningKey(
  events: KeyRingStore,
  options: {
    readonly kek: KeyEncryptionKey;
    /** Makes the new key (SIGNING_BACKEND); a local key sealed under `kek` when absent. */
    readonly signer?: KeyMakerOf;
    readonly activateInSeconds: number;
    readonly retireAfterSeconds: number;
    readonly actor?: KeyActor;
    /** A space's own ring; the shared one when absent. */
    readonly spaceId?: string;
  },
): Promise<{ readonly kid: string; readonly activatesAt: Date; readonly retiresOthersAt: Date }> {
  const keyMaker = options.signer ?? options.kek;
  const rotate = (command: KeyCommand, ring: KeyRing) => {
    const decided = decideRotateKey(
      {
        ...command,
        activateInSeconds: options.activateInSeconds,
        retireAfterSeconds: options.retireAfterSeconds,
      },
      ring,
    );
    if (!decided.ok) throw new Error('a rotation is never refused');
    return { events: decided.events, result: { kid: command.newKey.kid, ...decided.facts } };
  };
  return changeKeys(
    events,
    keyMaker,
    options.actor ?? SERVICE_ACTOR,
    rotate,
    options.spaceId ?? null,
  );
}

/**
 * Withdraws a key at once (a compromise): it leaves the JWKS and stops verifying on every replica
 * within SIGNING_KEY_REFRESH_MS; if no other key of its ring signs, a new one does at once. A
 * space's key is retired in that space's ring alone: no other space's keys change.
 */
export async function retireSigningKey(
  events: KeyRingStore,
  kid: string,
  actor: KeyActor,
  keyMaker: KeyMaker,
): Promise<{ readonly retired: boolean; readonly replacement?: string }> {
  const ring = await events.transact((tx) => tx.writes.keyRing.ringOfKey(kid));
  if (!ring) return { retired: false };
  return changeKeys<{ retired: boolean; replacement?: string }>(
    events,
    keyMaker,
    actor,
    (command, ring) => {
      const decided = decideRetireKey({ ...command, kid }, ring);
      if (!decided.ok) return { events: [], result: { retired: false } };
      const replaced = decided.events.some((event) => event.type === 'signing-key-generated');
      return {
        events: decided.events,
        result: replaced ? { retired: true, replacement: command.newKey.kid } : { retired: true },
      };
    },
    ring.spaceId,
  );
}

/**
 * A space's own issuer and keys turned on (by an admin, or by SPACE_SIGNING_KEYS=all before the
 * space's first issuance): its first key, named by a `signing-key-generated` event of reason
 * `space_keys_enabled` in the space's own log, naming who. Nothing when the space has keys.
 */
export async function enableSpaceKeys(
  events: KeyRingStore,
  spaceId: string,
  actor: KeyActor,
  keyMaker: KeyMaker,
): Promise<void> {
  await changeKeys(
    events,
    keyMaker,
    actor,
    (command, ring) => ({
      events: decideFirstKey(command, ring, 'space_keys_enabled').events,
      result: undefined,
    }),
    spaceId,
  );
}
