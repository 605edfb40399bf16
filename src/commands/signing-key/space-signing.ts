import { spaceIssuer } from '#verifier/issuer-keys.js';
import type { SigningKey } from '../../crypto/key-store.js';
import type { SpaceKeyStore } from '../../crypto/space-keys.js';
import { SERVICE_ACTOR } from './actor.js';
import { enableSpaceKeys } from './change-keys.js';
import type { KeyRingStore } from './key-ring-store.js';
import type { KeyMaker } from './key-maker.js';

/** What issuance needs of the spaces' own keys: their store, and what makes a space's first key. */
export interface SpaceSigning {
  readonly store: SpaceKeyStore;
  readonly maker: KeyMaker;
}

/** The key a space's token is signed with, and the issuer it names. */
export interface RingSigning {
  readonly key: SigningKey;
  readonly issuer: string;
}

// One first key per space in flight in this process: a burst of first issuances makes one.
const making = new Map<string, Promise<void>>();

/** A space's own signing; its first key is committed (published) before it signs its first token. */
export async function signingOfSpace(
  events: KeyRingStore,
  spaces: SpaceSigning,
  issuer: string,
  spaceId: string,
): Promise<RingSigning> {
  let key = (await spaces.store.ring(spaceId)).current();
  if (!key) {
    let pending = making.get(spaceId);
    if (!pending) {
      // The service's write, shared by every asker: its events name no request, so no one
      // request's deadline may refuse it.
      pending = enableSpaceKeys(events, spaceId, SERVICE_ACTOR, spaces.maker)
        .then(() => spaces.store.forget(spaceId))
        .finally(() => making.delete(spaceId));
      making.set(spaceId, pending);
    }
    await pending;
    key = (await spaces.store.ring(spaceId)).current();
    if (!key) throw new Error(`space ${spaceId} has no signing key after its first was made`);
  }
  return { key, issuer: spaceIssuer(issuer, spaceId) };
}
