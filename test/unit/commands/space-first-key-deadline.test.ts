import { describe, expect, it } from 'vitest';
import {
  currentDeadline,
  RequestDeadline,
  withDeadline,
} from '../../../packages/event-log/src/append-deadline.js';
import { AppendRefusedError } from '../../../packages/event-log/src/errors.js';
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
      maker: {},
    };
    // The store as the event log's: a write refused past the deadline of the request it serves.
    const events = {
      transact: async () => {
        const deadline = currentDeadline();
        if (deadline && !deadline.begin()) throw new AppendRefusedError('deadline_passed');
        made = true;
        deadline?.end(true);
        return { result: undefined, usedKey: false };
      },
    };
    const late = new RequestDeadline(() => {});
    late.pass();
    const onTime = new RequestDeadline(() => {});
    const ask = () => signingOfSpace(events as never, spaces as never, 'https://as', 'space-a');
    const [first, joined] = await Promise.allSettled([
      withDeadline(late, ask),
      withDeadline(onTime, ask),
    ]);
    expect(joined).toEqual({ status: 'fulfilled', value: expect.objectContaining({ key }) });
    expect(first.status).toBe('fulfilled');
  });
});
