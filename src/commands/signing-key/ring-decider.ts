import { streams, SYSTEM_SPACE, parseRecorded, type ServiceActor } from '../../domain/events.js';
import { accept, refuse } from '../../domain/decision.js';
import { uuidv7 } from '../../domain/ports.js';
import type { decideFirstKey, KeyCommand } from '../../domain/signing-key/decide.js';
import { evolveKeyRing, type SigningKeyEvent } from '../../domain/signing-key/evolve.js';
import type { KeyRing } from '../../domain/signing-key/state.js';
import type { GeneratedSigningKey } from '../../crypto/token-signer.js';
import { ACCESS_TOKEN_ALG } from '#verifier/algorithms.js';
import type { KeyRingWrites } from '../../projections/key-ring-writes.js';
import type { LockedDecider } from '../handle.js';

/** The events a key decision appends. */
export type KeyEventList = ReturnType<typeof decideFirstKey>['events'];

/** A key decision on a ring: its events and what the caller is answered. */
export type RingDecision<Result> = (
  command: KeyCommand,
  ring: KeyRing,
) => { events: KeyEventList; result: Result };

/** Refused, and rolled back, because the decision adds a key and none is made yet. */
export class KeyNeeded extends Error {
  constructor() {
    super('the decision adds a key: make one, then decide again');
  }
}

// Names the key a decision would add; never recorded (the decision is taken again with the real one).
const NO_KEY_YET = { kid: 'not-yet-generated', alg: ACCESS_TOKEN_ALG };

/**
 * A key ring as a locked decider: each event its own stream (processes record generation and
 * retirement independently); `spaceId` null is the shared ring. Needing a key without `material`
 * refuses {@link KeyNeeded}.
 */
export function ringDecider<Result>(
  decide: RingDecision<Result>,
  spaceId: string | null,
  material: GeneratedSigningKey | undefined,
): LockedDecider<
  ServiceActor,
  KeyRing,
  'key_needed',
  { readonly result: Result; readonly usedKey: boolean },
  { readonly keyRing: KeyRingWrites },
  KeyEventList[number]
> {
  return {
    load: async ({ keyRing }) => {
      await keyRing.lock();
      return keyRing.load(spaceId);
    },
    decide: (actor, ring) => {
      const command: KeyCommand = {
        ...actor,
        now: Date.now(),
        newKey: material ? { kid: material.kid, alg: material.alg } : NO_KEY_YET,
        newEventId: () => uuidv7(),
        ...(spaceId === null ? {} : { spaceId }),
      };
      const decided = decide(command, ring);
      const usedKey = decided.events.some((event) => event.type === 'signing-key-generated');
      if (usedKey && !material) return refuse('key_needed');
      return accept(decided.events, { result: decided.result, usedKey });
    },
    stream: (_actor, _facts, event) => ({
      spaceId: spaceId ?? SYSTEM_SPACE,
      stream: streams.signingKeyChange(event.data.kid, event.eventId),
    }),
    refusals: { key_needed: () => new KeyNeeded() },
    inline: async ({ keyRing }, _actor, before, _facts, recorded) => {
      const after = recorded
        .map((event) => parseRecorded<SigningKeyEvent['type']>(event))
        .reduce(evolveKeyRing, before);
      await keyRing.write(
        before,
        after,
        material && {
          kid: material.kid,
          publicJwk: material.publicJwk,
          // Sealed under the KEK, or (PKCS#11) which token holds it: never key material in the clear.
          privateJwk: material.stored,
        },
        spaceId,
      );
    },
  };
}
