import { describe, expect, it } from 'vitest';
import {
  deadlineOf,
  RequestDeadline,
  withDeadline,
} from '../../../packages/event-log/src/append-deadline.js';
import { AppendRefusedError } from '../../../packages/event-log/src/errors.js';
import type { NewEvent } from '../../../packages/event-log/src/types.js';
import { requestIdOf } from '../../../src/domain/stored-form.js';
import { signingOfSpace } from '../../../src/commands/signing-key/space-signing.js';

/**
 * A space's first key is made once for every request of the space asking at that moment: it is
 * the service's write, not the first asker's, so that request being past its deadline must not
 * fail the key, nor the others waiting for it.
 */
describe("a space's first signing key", () => {
  it('is made although the request that began it is past its deadline; a joined request gets it', async () => {
    let made = false;
    const key = { kid: 'k1' };
    const spaces = {
      store: { ring: async () => ({ current: () => (made ? key : undefined) }), forget: () => {} },
      maker: undefined as unknown,
    };
    // The store as the event log's: a transaction refused past the deadline of the request its
    // events name (command-context.ts finds it by their request id).
    const named: { requestId: string | undefined; held: boolean }[] = [];
    const events = {
      transact: async (work: (tx: unknown) => Promise<unknown>) => {
        let deadline: ReturnType<typeof deadlineOf>;
        const result = await work({
          writes: {
            keyRing: { lock: async () => {}, load: async () => [], write: async () => {} },
          },
          append: async (input: { streamId: string; events: readonly NewEvent[] }) => {
            const requestId = requestIdOf(input.events[0]);
            deadline ??= deadlineOf(requestId);
            named.push({ requestId, held: deadline !== undefined });
            return input.events.map((event, i) => ({
              ...event,
              streamId: input.streamId,
              streamVersion: i,
              globalPosition: i + 1,
              recordedAt: new Date(),
            }));
          },
        });
        if (deadline && !deadline.begin()) throw new AppendRefusedError('deadline_passed');
        made = true;
        deadline?.end(true);
        return result;
      },
    };
    const maker = {
      generate: async () => ({ kid: 'k1', alg: 'EdDSA', publicJwk: {}, stored: 'sealed' }),
      discard: async () => {},
    };
    const late = new RequestDeadline(() => {});
    late.pass();
    const onTime = new RequestDeadline(() => {});
    spaces.maker = maker;
    const ask = () => signingOfSpace(events as never, spaces as never, 'https://as', 'space-a');
    const [first, joined] = await Promise.allSettled([
      withDeadline('late-request', late, ask),
      withDeadline('on-time-request', onTime, ask),
    ]);
    expect(joined).toEqual({ status: 'fulfilled', value: expect.objectContaining({ key }) });
    expect(first.status).toBe('fulfilled');
    // The key's events name no asker: while both were handled, no deadline was found for them.
    expect(named.length).toBeGreaterThan(0);
    for (const { requestId, held } of named) {
      expect(requestId).not.toMatch(/^(late|on-time)-request$/);
      expect(held).toBe(false);
    }
  });
});
