import {
  domainEvent,
  serviceMetadata,
  type DomainEvent,
  type EventData,
  type ServiceActor,
} from '../events.js';
import { publishedKeys, signingKeys, type KeyRing } from './state.js';
import { accept, refuse, type Decision } from '../decision.js';
import { msOf } from '../times.js';

type KeyEvent = DomainEvent<'signing-key-generated' | 'signing-key-retired'>;

/** Who changes the keys and from where, when, the key that would be added, and event ids. */
export interface KeyCommand extends ServiceActor {
  readonly now: number;
  /** A freshly generated key (its id and algorithm); added only if the decision needs one. */
  readonly newKey: { readonly kid: string; readonly alg: string };
  readonly newEventId: () => string;
  /** The space whose own ring is decided on; absent for the shared ring. */
  readonly spaceId?: string;
}

function keyEvent<Type extends KeyEvent['type']>(
  command: KeyCommand,
  type: Type,
  data: EventData<Type>,
): DomainEvent<Type> {
  const eventId = command.newEventId();
  // A space's ring says so in each of its events: the projection writes the key to that ring.
  const ringData = command.spaceId === undefined ? data : { ...data, space_id: command.spaceId };
  return domainEvent(
    eventId,
    type,
    ringData,
    serviceMetadata(command.actor, command.requestId ?? eventId, command.origin),
  );
}

function generated(
  command: KeyCommand,
  activatesAt: number,
  reason: EventData<'signing-key-generated'>['reason'],
) {
  return keyEvent(command, 'signing-key-generated', {
    kid: command.newKey.kid,
    alg: command.newKey.alg,
    activates_at: new Date(activatesAt).toISOString(),
    reason,
  });
}

/** The first key, signing at once when none is published (no verifier can hold a JWKS lacking it). */
export function decideFirstKey(
  command: KeyCommand,
  ring: KeyRing,
  reason: 'first_key' | 'space_keys_enabled' = 'first_key',
): Decision<KeyEvent> {
  return accept(
    publishedKeys(ring, command.now).length > 0 ? [] : [generated(command, command.now, reason)],
  );
}

/** When a rotation's new key signs and the keys it replaces leave the JWKS. */
export interface RotationSchedule {
  readonly activatesAt: Date;
  readonly retiresOthersAt: Date;
}

/** Rotation: the new key signs once verifiers know it; others retire after the longest token. */
export function decideRotateKey(
  command: KeyCommand & {
    readonly activateInSeconds: number;
    readonly retireAfterSeconds: number;
  },
  ring: KeyRing,
): Decision<KeyEvent, never, RotationSchedule> {
  const activatesAt = command.now + msOf(command.activateInSeconds);
  const retiresOthersAt = new Date(activatesAt + msOf(command.retireAfterSeconds));
  const retiredAt = retiresOthersAt.toISOString();
  const events = [
    ...ring
      .filter((key) => key.retiredAt === null)
      .map((key) =>
        keyEvent(command, 'signing-key-retired', {
          kid: key.kid,
          retired_at: retiredAt,
          reason: 'rotated',
        }),
      ),
    generated(command, activatesAt, 'rotation'),
  ];
  return accept(events, { activatesAt: new Date(activatesAt), retiresOthersAt });
}

/** Withdraw a key at once (compromise); a new one signs if none else does. */
export function decideRetireKey(
  command: KeyCommand & { readonly kid: string },
  ring: KeyRing,
): Decision<KeyEvent, 'not_found'> {
  const key = ring.find((candidate) => candidate.kid === command.kid);
  if (!key || (key.retiredAt !== null && key.retiredAt <= command.now)) return refuse('not_found');
  const retired = keyEvent(command, 'signing-key-retired', {
    kid: key.kid,
    retired_at: new Date(command.now).toISOString(),
    reason: 'compromised',
  });
  const othersSign = signingKeys(ring, command.now).some((other) => other.kid !== key.kid);
  return accept(
    othersSign ? [retired] : [retired, generated(command, command.now, 'replaces_retired')],
  );
}

/** Private keys resealed under `kek`: one event naming them, none if nothing to reseal. */
export function decideReseal(
  command: ServiceActor & {
    readonly eventId: string;
    readonly kek: string;
    readonly reason: EventData<'signing-keys-resealed'>['reason'];
    readonly kids: readonly string[];
  },
): Decision<DomainEvent<'signing-keys-resealed'>> {
  if (command.kids.length === 0) return accept([]);
  const event = domainEvent(
    command.eventId,
    'signing-keys-resealed',
    { kids: [...command.kids], kek: command.kek, reason: command.reason },
    serviceMetadata(command.actor, command.requestId ?? command.eventId, command.origin),
  );
  return accept([event]);
}

/**
 * Ends a space's switch-over to its own ring at once ("the shared key leaked"): no token of the
 * shared ring speaks for the space any more. Once; a space on the shared keys has none to end.
 */
export function decideEndSwitchOver(
  command: Pick<KeyCommand, 'actor' | 'origin' | 'requestId' | 'newEventId'> & {
    readonly spaceId: string;
  },
  state: { readonly ring: KeyRing; readonly ended: boolean },
): Decision<DomainEvent<'space-switch-over-ended'>, 'not_found'> {
  if (state.ring.length === 0) return refuse('not_found');
  if (state.ended) return accept([]);
  const eventId = command.newEventId();
  const metadata = serviceMetadata(command.actor, command.requestId ?? eventId, command.origin);
  return accept([
    domainEvent(eventId, 'space-switch-over-ended', { space_id: command.spaceId }, metadata),
  ]);
}
