import { describe, expect, it } from 'vitest';
import {
  checkPartitionHistory,
  type PartitionHistory,
  type RequestRecord,
} from '../../../tools/reliability/partition-checker.js';

const ok = (jti: string, at: number): RequestRecord => ({
  status: 200,
  startedAt: at,
  endedAt: at + 20,
  retryAfter: null,
  jti,
});

/** A clean history: three tokens acknowledged around one switch, all in the final log. */
function clean(): PartitionHistory {
  return {
    requests: [
      ok('a', 1000),
      { status: 503, startedAt: 2000, endedAt: 4000, retryAfter: '1' },
      ok('b', 3000),
      ok('c', 9000),
    ],
    loggedTokens: [
      { jti: 'a', committedAt: 1010 },
      { jti: 'b', committedAt: 3010 },
      { jti: 'c', committedAt: 9010 },
    ],
    positions: [1, 2, 3, '4'],
    switches: [{ timeline: 1, switchedAt: 5000 }],
    views: { ok: true },
    witness: { cosignedAfterLastSwitch: 2, refused: 0 },
    revocations: [{ jti: 'a', heldAfter: true }],
    deadlineMs: 5000,
    graceMs: 1000,
    driverStalls: [],
  };
}

const kinds = (history: PartitionHistory) => checkPartitionHistory(history).map((f) => f.kind);

describe('the partition checker', () => {
  it('finds nothing in a clean history', () => {
    expect(checkPartitionHistory(clean())).toEqual([]);
  });

  it('finds an acknowledged token missing from the final log', () => {
    const history = clean();
    expect(kinds({ ...history, loggedTokens: history.loggedTokens.slice(1) })).toEqual(['lost']);
  });

  it('calls a token acknowledged after a switch and missing one a deposed leader acknowledged', () => {
    const history = clean();
    const findings = checkPartitionHistory({
      ...history,
      loggedTokens: history.loggedTokens.filter((row) => row.jti !== 'c'),
    });
    expect(findings).toEqual([{ kind: 'acknowledged-after-switch', detail: 'c at 9020' }]);
  });

  it('finds a token logged twice, and one acknowledged twice', () => {
    const history = clean();
    expect(
      kinds({
        ...history,
        loggedTokens: [...history.loggedTokens, { jti: 'b', committedAt: 3011 }],
      }),
    ).toEqual(['logged-twice']);
    expect(kinds({ ...history, requests: [...history.requests, ok('a', 9500)] })).toEqual([
      'acknowledged-twice',
    ]);
  });

  it('finds a stream position used twice', () => {
    expect(checkPartitionHistory({ ...clean(), positions: [1, 2, 3, 2] })).toEqual([
      { kind: 'position-reused', detail: '2' },
    ]);
  });

  it('finds a row committed well after its token was answered, and timelines out of order', () => {
    const history = clean();
    expect(
      kinds({
        ...history,
        loggedTokens: [{ jti: 'a', committedAt: 8000 }, ...history.loggedTokens.slice(1)],
      }),
    ).toEqual(['committed-after-acknowledged']);
    expect(
      kinds({
        ...history,
        switches: [
          { timeline: 2, switchedAt: 5000 },
          { timeline: 2, switchedAt: 6000 },
        ],
      }),
    ).toEqual(['timeline-order']);
    expect(
      kinds({
        ...history,
        switches: [
          { timeline: 2, switchedAt: 5000 },
          { timeline: 3, switchedAt: 4000 },
        ],
      }),
    ).toEqual(['timeline-order']);
    // A switch Patroni kept no time for (rebuilt from Postgres' history) orders by timeline only.
    expect(
      kinds({
        ...history,
        switches: [
          { timeline: 2, switchedAt: 5000 },
          { timeline: 3 },
          { timeline: 4, switchedAt: 6000 },
        ],
      }),
    ).toEqual([]);
  });

  it('finds views that differ from the log, a refused head (a fork), and no head cosigned after failover', () => {
    expect(kinds({ ...clean(), views: { ok: false, detail: 'credential_usage' } })).toEqual([
      'views',
    ]);
    expect(kinds({ ...clean(), witness: { cosignedAfterLastSwitch: 3, refused: 1 } })).toEqual([
      'witness-refused',
    ]);
    expect(kinds({ ...clean(), witness: { cosignedAfterLastSwitch: 0, refused: 0 } })).toEqual([
      'witness-silent',
    ]);
  });

  it('finds a revocation that a fault undid', () => {
    expect(kinds({ ...clean(), revocations: [{ jti: 'a', heldAfter: false }] })).toEqual([
      'revocation-lost',
    ]);
  });

  it('finds a 503 without Retry-After, another status, a failed connection and a hang', () => {
    const history = clean();
    const more: RequestRecord[] = [
      { status: 503, startedAt: 1, endedAt: 2, retryAfter: null },
      { status: 502, startedAt: 1, endedAt: 2, retryAfter: null },
      { status: 0, startedAt: 1, endedAt: 2, retryAfter: null },
      { status: 503, startedAt: 0, endedAt: 6001, retryAfter: '1' },
    ];
    expect(kinds({ ...history, requests: [...history.requests, ...more] })).toEqual([
      'bad-answer',
      'bad-answer',
      'bad-answer',
      'hang',
    ]);
  });

  it('judges an answer read just after a driver stall by when it could have come', () => {
    const history = clean();
    // Read at 20 s, just after the driver's loop stood still from 4 s to 19.9 s: it came within
    // 4..20 s, so it may or may not have been late: unmeasured, never passed.
    const late: RequestRecord = { status: 503, startedAt: 0, endedAt: 20_000, retryAfter: '1' };
    const requests = [...history.requests, late];
    expect(
      checkPartitionHistory({ ...history, requests, driverStalls: [{ from: 4000, to: 19_900 }] }),
    ).toEqual([
      { kind: 'unmeasured', detail: '503 read after a driver stall: 4000-20000 ms, at 0' },
    ]);
    // The stall began past the limit (6 s): late whenever it came.
    expect(
      checkPartitionHistory({ ...history, requests, driverStalls: [{ from: 8000, to: 19_900 }] }),
    ).toEqual([
      { kind: 'hang', detail: '503 after 8000 ms (read after a driver stall; 20000 ms at most)' },
    ]);
    // A stall that ended long before the answer excuses nothing: the loop was running when it came.
    expect(
      checkPartitionHistory({ ...history, requests, driverStalls: [{ from: 1000, to: 4000 }] }),
    ).toEqual([{ kind: 'hang', detail: '503 after 20000 ms' }]);
    // Read at 6.2 s, 300 ms after a stall that ended at 5.9 s: it may have come after the stall,
    // past the limit (6 s), so a stall never passes it; without the stall it is a hang.
    const edge: RequestRecord = { status: 503, startedAt: 0, endedAt: 6200, retryAfter: '1' };
    const withEdge = [...history.requests, edge];
    const stall = [{ from: 2000, to: 5900 }];
    expect(kinds({ ...history, requests: withEdge, driverStalls: stall })).toEqual(['unmeasured']);
    expect(kinds({ ...history, requests: withEdge })).toEqual(['hang']);
    // Read in the stall's last turn, before the ticker saw it end: judged the same way.
    expect(kinds({ ...history, requests, driverStalls: [{ from: 4000, to: 20_050 }] })).toEqual([
      'unmeasured',
    ]);
    // Read in time just after a stall: fine.
    const inTime: RequestRecord = { ...edge, endedAt: 5950 };
    expect(
      kinds({ ...history, requests: [...history.requests, inTime], driverStalls: stall }),
    ).toEqual([]);
  });
});
