import {
  decideEndSwitchOver,
  decideFirstKey,
  decideRetireKey,
  decideRotateKey,
  type KeyCommand,
} from '../../domain/signing-key/decide.js';
import type { KeyRing } from '../../domain/signing-key/state.js';
import type { KeyRingStore } from './key-ring-store.js';
import type { KeyEncryptionKey } from '../../crypto/key-encryption.js';
import type { GeneratedSigningKey } from '../../crypto/token-signer.js';
import { streams, type ServiceActor } from '../../domain/events.js';
import { uuidv7 } from '../../domain/ports.js';
import { NotFoundError } from '../../errors/errors.js';
import { handleLocked } from '../handle.js';
import { KeyNeeded, ringDecider, type RingDecision } from './ring-decider.js';
import { sealKeysInTheClear } from './reseal.js';
import { SERVICE_ACTOR } from './actor.js';
import { discardUnrecorded, makerOf, type KeyMaker, type KeyMakerOf } from './key-maker.js';

/**
 * One signing-key decision under the one key-ring lock (key changes are rare), in one transaction.
 * A key is made outside it (no waiting on an HSM) and the decision taken again; a key made for a
 * decision that no longer needs it, or for a failed change, is destroyed.
 */
export async function changeKeys<Result>(
  events: KeyRingStore,
  keyMaker: KeyMaker,
  actor: ServiceActor,
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

/** At every API start: seals clear private keys, then makes the first signing key if none is published. */
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

/** Rotation: a new key published now, signing in `activateInSeconds`; the replaced retire after that. */
export async function rotateSigningKey(
  events: KeyRingStore,
  options: {
    readonly kek: KeyEncryptionKey;
    /** Makes the new key (SIGNING_BACKEND); a local key sealed under `kek` when absent. */
    readonly signer?: KeyMakerOf;
    readonly activateInSeconds: number;
    readonly retireAfterSeconds: number;
    readonly actor?: ServiceActor;
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

/** Withdraws a key at once in its own ring; every replica drops it within SIGNING_KEY_REFRESH_MS. */
export async function retireSigningKey(
  events: KeyRingStore,
  kid: string,
  actor: ServiceActor,
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

/** A space's own issuer and first key (`space_keys_enabled`), naming who; nothing if it has keys. */
export async function enableSpaceKeys(
  events: KeyRingStore,
  spaceId: string,
  actor: ServiceActor,
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

/** Ends a space's switch-over to its own keys (decideEndSwitchOver), under the key-ring lock. */
export function endSwitchOver(
  events: KeyRingStore,
  spaceId: string,
  actor: ServiceActor,
): Promise<void> {
  return handleLocked(
    events,
    {
      load: async ({ keyRing }) => {
        await keyRing.lock();
        return { ring: await keyRing.load(spaceId), ended: await keyRing.switchOverEnded(spaceId) };
      },
      decide: (command, state) =>
        decideEndSwitchOver({ ...command, spaceId, newEventId: () => uuidv7() }, state),
      stream: () => ({ spaceId, stream: streams.switchOverEnd(spaceId) }),
      refusals: { not_found: () => new NotFoundError('this space has no keys of its own') },
      inline: ({ keyRing }, _actor, _state, _facts, [event]) =>
        keyRing.endSwitchOver(spaceId, event!.recordedAt),
    },
    actor,
    async () => undefined,
  );
}
