import { describe, expect, it } from 'vitest';
import { decideRecordAuditRead } from '../../../src/domain/audit-read/decide.js';
import { metadata } from '../../support/given.js';

describe('audit read', () => {
  it('when someone reads the audit log, then audit-log-read names what they asked and got', () => {
    const read = {
      kind: 'export' as const,
      query: { from: 'x' },
      rows_returned: 3,
      complete: true,
    };
    expect(decideRecordAuditRead({ eventId: 'e-1', read, metadata })).toEqual({
      ok: true,
      events: [{ eventId: 'e-1', type: 'audit-log-read', data: read, metadata }],
      facts: undefined,
    });
  });

  it('when the query is not a string map, then the event refuses to be built', () => {
    expect(() =>
      decideRecordAuditRead({
        eventId: 'e-2',
        read: {
          kind: 'events',
          query: { n: 1 as unknown as string },
          rows_returned: 0,
          complete: true,
        },
        metadata,
      }),
    ).toThrow();
  });
});
