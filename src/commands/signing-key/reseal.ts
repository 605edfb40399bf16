import { streams, SYSTEM_SPACE, type ServiceActor } from '../../domain/events.js';
import { uuidv7 } from '../../domain/ports.js';
import { decideReseal } from '../../domain/signing-key/decide.js';
import type { KeyRingWrites } from '../../projections/key-ring-writes.js';
import { handleLocked, type LockedDecider } from '../handle.js';
import type { KeyRingStore } from './key-ring-store.js';
import {
  isSealed,
  rewrapPrivateKey,
  sealPrivateKey,
  type KeyEncryptionKey,
  type SealedPrivateKey,
} from '../../crypto/key-encryption.js';
import { isHsmKeyReference } from '../../crypto/token-signer.js';

/** Reseals, under the key-ring lock with its event, every key `reseal` seals anew; returns their ids. */
async function reseal(
  events: KeyRingStore,
  actor: ServiceActor,
  kek: KeyEncryptionKey,
  reason: 'sealed' | 'rewrapped',
  resealed: (kid: string, stored: unknown) => SealedPrivateKey | undefined,
): Promise<readonly string[]> {
  const decider: LockedDecider<
    ServiceActor,
    ReadonlyArray<{ readonly kid: string; readonly sealed: SealedPrivateKey }>,
    never,
    undefined,
    { readonly keyRing: KeyRingWrites }
  > = {
    load: async ({ keyRing }) => {
      await keyRing.lock();
      return (await keyRing.storedPrivateKeys()).flatMap(({ kid, stored }) => {
        const sealed = resealed(kid, stored);
        return sealed ? [{ kid, sealed }] : [];
      });
    },
    decide: (command, changed) =>
      decideReseal({
        ...command,
        eventId: uuidv7(),
        kek: kek.id,
        reason,
        kids: changed.map((key) => key.kid),
      }),
    stream: (_command, _facts, event) => ({
      spaceId: SYSTEM_SPACE,
      stream: streams.signingKeyChange('ring', event.eventId),
    }),
    refusals: {},
    inline: ({ keyRing }, _command, changed) => keyRing.writeSealed(changed),
  };
  return handleLocked(events, decider, actor, async (_writes, done) =>
    done.state.map((key) => key.kid),
  );
}

/** Seals every private key stored in the clear, at every API start. */
export function sealKeysInTheClear(
  events: KeyRingStore,
  kek: KeyEncryptionKey,
  actor: ServiceActor,
): Promise<readonly string[]> {
  return reseal(events, actor, kek, 'sealed', (kid, stored) =>
    // A key in an HSM left only its reference here: nothing to seal.
    isSealed(stored) || isHsmKeyReference(stored)
      ? undefined
      : sealPrivateKey(kek, kid, stored as object),
  );
}

/** Moves keys from `from` to `to` (data keys re-encrypted); reruns record nothing. */
export function rewrapSigningKeys(
  events: KeyRingStore,
  from: KeyEncryptionKey,
  to: KeyEncryptionKey,
  actor: ServiceActor,
): Promise<readonly string[]> {
  return reseal(events, actor, to, 'rewrapped', (kid, stored) => {
    if (isHsmKeyReference(stored)) return undefined;
    if (!isSealed(stored)) return sealPrivateKey(to, kid, stored as object);
    if ((stored as SealedPrivateKey).kek === to.id) return undefined;
    return rewrapPrivateKey(from, to, kid, stored);
  });
}
