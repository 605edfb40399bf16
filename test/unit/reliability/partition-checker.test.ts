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

  it("takes the driver's own stalls out of an answer's time, and only those", () => {
    const history = clean();
    // Answered at 5.5 s, seen at 20 s: the driver's loop stood still from 5 s to 19.5 s (in a run
    // of 200 s, so under a tenth of it).
    const late: RequestRecord = { status: 503, startedAt: 0, endedAt: 20_000, retryAfter: '1' };
    const last: RequestRecord = {
      status: 503,
      startedAt: 200_000,
      endedAt: 200_100,
      retryAfter: '1',
    };
    const requests = [...history.requests, late, last];
    expect(kinds({ ...history, requests, driverStalls: [{ from: 5000, to: 19_500 }] })).toEqual([]);
    // A 2 s stall does not explain a 20 s answer: still a hang, with the stall named.
    expect(
      checkPartitionHistory({ ...history, requests, driverStalls: [{ from: 5000, to: 7000 }] }),
    ).toEqual([{ kind: 'hang', detail: '503 after 18000 ms (and 2000 ms of driver stall)' }]);
    // A stall outside the request takes nothing off.
    expect(kinds({ ...history, requests, driverStalls: [{ from: 21_000, to: 21_100 }] })).toEqual([
      'hang',
    ]);
  });

  it('calls a run whose driver stood still for over a tenth of it unmeasured', () => {
    // The requests span 1,000..9,020 ms: a stall of 700 ms passes, one of 700 ms more does not.
    expect(kinds({ ...clean(), driverStalls: [{ from: 2000, to: 2700 }] })).toEqual([]);
    expect(
      kinds({
        ...clean(),
        driverStalls: [
          { from: 2000, to: 2700 },
          { from: 6000, to: 6700 },
        ],
      }),
    ).toEqual(['unmeasured']);
  });
});
