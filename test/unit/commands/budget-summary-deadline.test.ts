import { describe, expect, it } from 'vitest';
import pino from 'pino';
import {
  deadlineOf,
  RequestDeadline,
  withDeadline,
} from '../../../packages/event-log/src/append-deadline.js';
import type { AppendInput } from '../../../packages/event-log/src/append-to-stream.js';
import { createAccessRefusals } from '../../../src/commands/access-refusal/record.js';
import { randomIds } from '../../../src/domain/ports.js';
import { requestIdOf } from '../../../src/domain/stored-form.js';
import { metadata } from '../../support/given.js';

/**
 * A budget's summary counts many requests: the one whose refusal closed the window must not have
 * its deadline refuse the summary (it would lose every other request's count), while the refusal
 * it recorded itself is its own write, held to its deadline.
 */
describe("a budget's summary, written while a request is handled", () => {
  it("names a request of its own, so no handled request's deadline holds it", async () => {
    const appended: { type: string; requestId: string | undefined; held: boolean }[] = [];
    const events = {
      append: async (input: AppendInput) => {
        for (const event of input.events) {
          const requestId = requestIdOf(event);
          appended.push({ type: event.type, requestId, held: deadlineOf(requestId) !== undefined });
        }
        return { ok: true, duplicate: false, events: [] };
      },
      transact: () => Promise.reject(new Error('not used')),
      queued: () => 0,
    };
    let now = Date.UTC(2026, 0, 1, 0, 0, 10);
    const refusals = createAccessRefusals({
      events: events as never,
      perMinute: 1,
      clock: { now: () => now },
      logger: pino({ level: 'silent' }),
      ids: randomIds,
      flushIntervalMs: 3_600_000,
    });
    const refusal = {
      reason: 'space_not_granted' as const,
      subject: 'mallory',
      operation: 'listCredentials',
      requested_space: 'space-b',
    };
    const asked = { ...metadata, request_id: 'request-a' };
    await withDeadline('request-a', new RequestDeadline(() => {}), async () => {
      await refusals.refused(refusal, asked); // recorded
      await refusals.refused(refusal, asked); // over budget: counted
      now += 60_000;
      await refusals.refused(refusal, asked); // a new minute: the last one's summary is written
    });
    await refusals.close();

    const summaries = appended.filter((a) => a.type === 'access-refusals-summarized');
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.requestId).not.toBe('request-a');
    expect(summaries[0]!.held).toBe(false);
    const own = appended.filter((a) => a.type === 'access-refused');
    expect(own).toEqual([
      { type: 'access-refused', requestId: 'request-a', held: true },
      { type: 'access-refused', requestId: 'request-a', held: true },
    ]);
  });
});
