import { decideScheduledRotation, type RotationPolicy } from '../../domain/signing-key/schedule.js';
import { msOf } from '../../domain/times.js';
import { SERVICE_ACTOR } from './actor.js';
import { changeKeys } from './change-keys.js';
import type { KeyRingStore } from './key-ring-store.js';
import type { KeyMaker } from './key-maker.js';

/** The rotation policy of the shared ring and of the spaces' own rings; absent: by hand only. */
export interface RotationSettings {
  readonly shared?: RotationPolicy;
  readonly spaces?: RotationPolicy;
}

/** Rotates due rings, each decided under the lock on its state, so concurrent replicas rotate once. */
export async function rotateDueSigningKeys(
  events: KeyRingStore,
  keyMaker: KeyMaker,
  settings: RotationSettings,
  now: number = Date.now(),
): Promise<ReadonlyArray<string | null>> {
  const margins = [settings.shared, settings.spaces].filter((policy) => policy !== undefined);
  if (margins.length === 0) return [];
  // The earliest any ring may be due: its newest key activated this long ago or more.
  const shortest = Math.min(
    ...margins.map((policy) => policy.signingLifetimeSeconds - policy.publishAheadSeconds),
  );
  const candidates = await events.transact((tx) =>
    tx.writes.keyRing.ringsDueBy(new Date(now - msOf(shortest)), new Date(now)),
  );
  const rotated: Array<string | null> = [];
  for (const spaceId of candidates) {
    const policy = spaceId === null ? settings.shared : settings.spaces;
    if (!policy) continue;
    const done = await changeKeys(
      events,
      keyMaker,
      SERVICE_ACTOR,
      (command, ring) => {
        const decided = decideScheduledRotation({ ...command, ...policy, now }, ring);
        if (!decided.ok) throw new Error('a scheduled rotation is never refused');
        return { events: decided.events, result: decided.events.length > 0 };
      },
      spaceId,
    );
    if (done) rotated.push(spaceId);
  }
  return rotated;
}

/** {@link rotateDueSigningKeys} every `checkMs`; a failed round is reported and retried (idempotent). */
export function startScheduledRotation(
  events: KeyRingStore,
  keyMaker: KeyMaker,
  settings: RotationSettings,
  options: { readonly checkMs: number; readonly failed: (error: unknown) => void },
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    rotateDueSigningKeys(events, keyMaker, settings)
      .catch(options.failed)
      .finally(() => (running = false));
  }, options.checkMs);
  timer.unref();
  return () => clearInterval(timer);
}
