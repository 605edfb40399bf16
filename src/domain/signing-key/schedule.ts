import type { DomainEvent } from '../events.js';
import { accept, type Decision } from '../decision.js';
import { msOf } from '../times.js';
import { decideRotateKey, type KeyCommand, type RotationSchedule } from './decide.js';
import { signingKeys, type KeyRing } from './state.js';

/** A ring's rotation settings (SIGNING_KEY_ROTATION_SECONDS and the publication margins). */
export interface RotationPolicy {
  /** How long a key signs before its successor takes over. */
  readonly signingLifetimeSeconds: number;
  /** How long before signing a new key is published (at least the JWKS cache time). */
  readonly publishAheadSeconds: number;
  /** How long a replaced key stays published after its successor signs (longest token lifetime). */
  readonly retireAfterSeconds: number;
}

/**
 * Due from the ring alone (so it happens once whoever asks): the signer's lifetime less the margin
 * passed and no successor waits. A ring with no signing key is not rotated.
 */
export function decideScheduledRotation(
  command: KeyCommand & RotationPolicy,
  ring: KeyRing,
): Decision<
  DomainEvent<'signing-key-generated' | 'signing-key-retired'>,
  never,
  RotationSchedule | undefined
> {
  const waiting = ring.some((key) => key.retiredAt === null && key.activatesAt > command.now);
  const newest = Math.max(...signingKeys(ring, command.now).map((key) => key.activatesAt));
  const dueAt = newest + msOf(command.signingLifetimeSeconds) - msOf(command.publishAheadSeconds);
  if (waiting || !Number.isFinite(newest) || command.now < dueAt) return accept([], undefined);
  return decideRotateKey({ ...command, activateInSeconds: command.publishAheadSeconds }, ring);
}
