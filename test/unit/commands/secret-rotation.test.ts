import { describe, expect, it } from 'vitest';
import { createCredential } from '../../../src/commands/credential/create.js';
import { rotateSecret } from '../../../src/commands/credential/change.js';
import { IdempotencyKeyReusedError } from '../../../src/errors/errors.js';
import { inMemoryCommandContext } from '../../support/in-memory-context.js';

// The rotation handler on the in-memory event store (no Postgres): its races and retries.
const metadata = {
  actor: 'user:alice',
  request_id: 'req-1',
  client_ip: '192.0.2.1',
  user_agent: null,
};

async function given() {
  const { ctx, memory, clock } = inMemoryCommandContext();
  const created = await createCredential(ctx, {
    spaceId: 'shop',
    name: 'storefront',
    description: 'web',
    userSubject: 'alice',
    loginIssuer: 'https://idp.test',
    metadata,
  });
  const rotation = {
    spaceId: 'shop',
    clientId: created.clientId,
    actor: 'user:alice',
    metadata,
    overlapSeconds: 600,
  };
  const typesLogged = () => memory.log.map((event) => event.type);
  return { ctx, memory, clock, created, rotation, typesLogged };
}

describe('rotating a secret, on the in-memory event store', () => {
  it('concurrent requests with one Idempotency-Key rotate once, all get the same secret, and each replay is recorded', async () => {
    const { ctx, memory, created, rotation, typesLogged } = await given();
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => rotateSecret(ctx, { ...rotation, idempotencyKey: 'k-1' })),
    );
    expect(new Set(answers.map((answer) => answer.clientSecret)).size).toBe(1);
    expect(answers[0]!.clientSecret).not.toBe(created.clientSecret);
    expect(typesLogged().filter((type) => type === 'credential-secret-rotated')).toHaveLength(1);
    expect(typesLogged().filter((type) => type === 'credential-secret-replayed')).toHaveLength(4);
    // The read model holds the one rotation: the new secret is the current one.
    const stored = memory.models.credentials.get(created.clientId)!;
    expect(stored.secretHash).toEqual(ctx.hasher.hash(answers[0]!.clientSecret));
  });

  it('without a key, concurrent requests each rotate or conflict: never two rotations from one read', async () => {
    const { ctx, rotation, typesLogged } = await given();
    const settled = await Promise.allSettled(
      Array.from({ length: 5 }, () => rotateSecret(ctx, rotation)),
    );
    const rotated = settled.filter((result) => result.status === 'fulfilled');
    expect(rotated).toHaveLength(1);
    for (const result of settled.filter((result) => result.status === 'rejected')) {
      expect(String((result as PromiseRejectedResult).reason)).toMatch(/changed meanwhile/);
    }
    expect(typesLogged().filter((type) => type === 'credential-secret-rotated')).toHaveLength(1);
  });

  it('a retry with the same key after the first answered gets the same secret and rotates nothing more', async () => {
    const { ctx, rotation, typesLogged } = await given();
    const first = await rotateSecret(ctx, { ...rotation, idempotencyKey: 'k-2' });
    const retry = await rotateSecret(ctx, { ...rotation, idempotencyKey: 'k-2' });
    expect(retry).toEqual(first);
    expect(typesLogged()).toEqual([
      'credential-created',
      'credential-secret-rotated',
      'credential-secret-replayed',
    ]);
  });

  it("another caller's same key is another key: it rotates anew", async () => {
    const { ctx, rotation, typesLogged } = await given();
    const alice = await rotateSecret(ctx, { ...rotation, idempotencyKey: 'k-3' });
    const bob = await rotateSecret(ctx, { ...rotation, actor: 'user:bob', idempotencyKey: 'k-3' });
    expect(bob.clientSecret).not.toBe(alice.clientSecret);
    expect(typesLogged().filter((type) => type === 'credential-secret-rotated')).toHaveLength(2);
  });

  it('the same key for another request is refused and changes nothing', async () => {
    const { ctx, rotation, typesLogged } = await given();
    await rotateSecret(ctx, { ...rotation, idempotencyKey: 'k-4' });
    const before = typesLogged();
    await expect(
      rotateSecret(ctx, { ...rotation, overlapSeconds: 60, idempotencyKey: 'k-4' }),
    ).rejects.toThrow(IdempotencyKeyReusedError);
    expect(typesLogged()).toEqual(before);
  });
});
