import type { Recorded } from '../events.js';
import type { KeyRing } from './state.js';

/** The events about signing keys. */
export type SigningKeyEvent = Recorded<'signing-key-generated' | 'signing-key-retired'>;

/** The key ring after `event`. Pure; the `signing_keys` rows are this state, written inline. */
export function evolveKeyRing(ring: KeyRing, event: SigningKeyEvent): KeyRing {
  switch (event.type) {
    case 'signing-key-generated':
      return [
        ...ring,
        {
          kid: event.data.kid,
          alg: event.data.alg,
          activatesAt: Date.parse(event.data.activates_at),
          retiredAt: null,
        },
      ];
    case 'signing-key-retired': {
      const retiredAt = Date.parse(event.data.retired_at);
      return ring.map((key) => (key.kid === event.data.kid ? { ...key, retiredAt } : key));
    }
  }
}
