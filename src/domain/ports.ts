import { randomUUID } from 'node:crypto';

/** Time, injectable so tests can pin it. Milliseconds since the epoch. */
export interface Clock {
  now(): number;
}

/** Identifiers, injectable so tests can pin them. */
export interface IdGenerator {
  eventId(): string;
  tokenId(): string;
}

export const systemClock: Clock = { now: () => Date.now() };

export const randomIds: IdGenerator = { eventId: randomUUID, tokenId: randomUUID };
