import type { KeyRingStore } from './key-ring-store.js';
import { generateSealedSigningKey } from '../../crypto/local-signer.js';
import type { KeyEncryptionKey } from '../../crypto/key-encryption.js';
import type { TokenSigner } from '../../crypto/token-signer.js';

/** What makes a key: SIGNING_BACKEND, or a local key sealed under the KEK. */
export type KeyMaker = KeyEncryptionKey | KeyMakerOf;
/** What a {@link KeyMaker} is used as: it makes a key, and destroys one no ring records. */
export type KeyMakerOf = Pick<TokenSigner, 'generate' | 'discard'>;

/** The signer given, or a maker of local keys sealed under the KEK given. */
export function makerOf(keyMaker: KeyMaker): KeyMakerOf {
  return 'generate' in keyMaker
    ? keyMaker
    : { generate: () => generateSealedSigningKey(keyMaker), discard: async () => undefined };
}

/** After a failed change, destroys its key unless a ring records it; unsure, keeps it (orphans are cheap). */
export async function discardUnrecorded(
  events: KeyRingStore,
  maker: KeyMakerOf,
  kid: string,
): Promise<void> {
  try {
    const recorded = await events.transact((tx) => tx.writes.keyRing.ringOfKey(kid));
    if (!recorded) await maker.discard(kid);
  } catch {
    // The change's own error is the one to report.
  }
}
