import { describe, expect, it } from 'vitest';
import { isMissingPartition } from '../src/errors.js';
import { insertStatement, streamRows } from '../src/insert-events.js';
import { isAfter } from '../src/read-log.js';
import { LOG_START, toRecordedEvent } from '../src/types.js';
import { CompiledOnly } from './stand-in-driver.js';

const event = (eventId: string) => ({ eventId, type: 't', data: { n: 1 }, metadata: {} });

describe('the log alone', () => {
  it('orders positions by transaction first, then position', () => {
    expect(isAfter({ transactionId: '10', globalPosition: 1 }, LOG_START)).toBe(true);
    expect(
      isAfter(
        { transactionId: '9', globalPosition: 50 },
        { transactionId: '10', globalPosition: 1 },
      ),
    ).toBe(false);
    expect(
      isAfter(
        { transactionId: '10', globalPosition: 2 },
        { transactionId: '10', globalPosition: 1 },
      ),
    ).toBe(true);
  });

  it('sends one INSERT text whatever the rows, so it is prepared once', () => {
    const one = insertStatement(streamRows('s', 'a', [event('e1')], 0)).compile(CompiledOnly);
    const three = insertStatement(
      streamRows('s', 'b', [event('e2'), event('e3'), event('e4')], 2),
    ).compile(CompiledOnly);
    expect(three.sql).toBe(one.sql);
    expect(
      JSON.parse(String(three.parameters[0])).map(
        (row: { stream_position: number }) => row.stream_position,
      ),
    ).toEqual([3, 4, 5]);
  });

  it('tells a missing partition from other check violations', () => {
    expect(
      isMissingPartition({
        code: '23514',
        message: 'no partition of relation "events" found for row',
      }),
    ).toBe(true);
    expect(
      isMissingPartition({ code: '23514', message: 'new row violates check constraint' }),
    ).toBe(false);
  });

  it('reads a row with its positions as numbers', () => {
    const recorded = toRecordedEvent({
      global_position: '7' as unknown as number,
      transaction_id: '3',
      space_id: 's',
      stream_id: 'a',
      stream_position: 1,
      event_id: 'e',
      event_type: 't',
      schema_version: 1,
      data: {},
      metadata: null,
      recorded_at: new Date(0),
    });
    expect(recorded).toMatchObject({ globalPosition: 7, transactionId: '3', metadata: {} });
  });
});
