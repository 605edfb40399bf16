import { streams } from '../../domain/events.js';
import { uuidv7 } from '../../domain/ports.js';
import { decideEndSwitchOver } from '../../domain/signing-key/decide.js';
import { NotFoundError } from '../../errors/errors.js';
import { handleLocked } from '../handle.js';
import type { KeyActor } from './actor.js';
import type { KeyRingStore } from './key-ring-store.js';

/** Ends a space's switch-over to its own keys (decideEndSwitchOver), under the key-ring lock. */
export function endSwitchOver(
  events: KeyRingStore,
  spaceId: string,
  actor: KeyActor,
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
      stream: () => ({ spaceId, streamId: streams.switchOverEnd(spaceId) }),
      refusals: { not_found: () => new NotFoundError('this space has no keys of its own') },
      inline: ({ keyRing }, _actor, _state, _facts, [event]) =>
        keyRing.endSwitchOver(spaceId, event!.recordedAt),
    },
    actor,
    async () => undefined,
  );
}
