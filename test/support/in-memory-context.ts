import { createStatusSlots } from '../../src/crypto/status-slots.js';
import { randomBytes } from 'node:crypto';
import type { CommandContext } from '../../src/commands/context.js';
import { randomIds } from '../../src/domain/ports.js';
import { keyEncryptionKey } from '../../src/crypto/key-encryption.js';
import { createSecretHasher } from '../../src/crypto/secrets.js';
import { createInMemoryEventStore, type InMemoryEventStore } from './in-memory-store.js';

/** A clock a test moves by hand. */
export interface ManualClock {
  now(): number;
  advance(ms: number): void;
}

/** Ports the in-memory context does not give: using one fails the test, naming it. */
const ABSENT = ['keys', 'verifier', 'limits', 'failures', 'refusals', 'usedOnce', 'revocations'];

function absent(port: string): never {
  return new Proxy(
    {},
    {
      get(_target, property) {
        throw new Error(
          `the in-memory command context has no ${port} (asked for .${String(property)}): test this handler on Postgres (test/integration)`,
        );
      },
    },
  ) as never;
}

/**
 * A CommandContext on the in-memory event store: the credential handlers run on it (the read
 * models are the maps the store's inline writes fill), with a hand-moved clock. Built for the
 * handlers' races and retries; ports they do not use are absent and fail loudly when used.
 */
export function inMemoryCommandContext(start = Date.parse('2026-11-24T12:00:00Z')): {
  readonly ctx: CommandContext;
  readonly memory: InMemoryEventStore;
  readonly clock: ManualClock;
} {
  let time = start;
  const clock: ManualClock = { now: () => time, advance: (ms) => void (time += ms) };
  const memory = createInMemoryEventStore(clock.now);
  const { credentials, idempotentResponses } = memory.models;
  const ctx = {
    ...Object.fromEntries(ABSENT.map((port) => [port, absent(port)])),
    events: memory.store,
    credentials: {
      find: async (clientId: string) => credentials.get(clientId),
      findFresh: async (clientId: string) => credentials.get(clientId),
      forget: () => undefined,
      sizes: () => ({ known: credentials.size, unknown: 0 }),
    },
    hasher: createSecretHasher(randomBytes(32)),
    kek: keyEncryptionKey(randomBytes(32)),
    idempotentResponses: {
      ttlSeconds: 86_400,
      find: async (spaceId: string, keyHash: string) => {
        const kept = idempotentResponses.get(`${spaceId}:${keyHash}`);
        return kept && kept.expiresAt.getTime() > clock.now() ? kept : undefined;
      },
    },
    clock,
    ids: randomIds,
    statusSlots: createStatusSlots(randomBytes(32)),
    issuer: 'https://token-authority.test',
    audiences: ['storefront.test'],
    privateTokenTtlSeconds: 3600,
    publicTokenTtlSeconds: 900,
    spaceRateLimitPerMinute: 6000,
    scopeCatalog: {},
  } as unknown as CommandContext;
  return { ctx, memory, clock };
}
