/**
 * The partition drill's checker: what a history of token requests under a network nemesis, and the
 * final leader's log, must satisfy. Pure: the drill gathers the history, this judges it, and the
 * unit tests judge crafted histories with the same function.
 */

/** One token request's fate, as the load driver saw it. */
export interface RequestRecord {
  readonly status: number;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly retryAfter: string | null;
  /** The token's id, when it was answered 200. */
  readonly jti?: string;
}

/** A span (epoch ms) in which the load driver's own event loop did not run: not the service's time. */
export interface DriverStall {
  readonly from: number;
  readonly to: number;
}

/** One `private-token-issued` row of the final leader's log among the acknowledged jtis. */
export interface LoggedToken {
  readonly jti: string;
  /** Its commit time (track_commit_timestamp), epoch ms; null when Postgres does not know it. */
  readonly committedAt: number | null;
}

/**
 * A timeline switch in Patroni's history: `timeline` ended at `switchedAt` (epoch ms), when
 * Patroni recorded it — an entry rebuilt from Postgres' own timeline history has no time.
 */
export interface TimelineSwitch {
  readonly timeline: number;
  readonly switchedAt?: number;
}

/** What the drill gathered. */
export interface PartitionHistory {
  readonly requests: readonly RequestRecord[];
  readonly loggedTokens: readonly LoggedToken[];
  /** Every global position of the final log (duplicates are what is looked for). */
  readonly positions: readonly (number | string)[];
  readonly switches: readonly TimelineSwitch[];
  /**
   * The views against their recomputation from the log, and the log tree recomputed from the
   * events against its signed heads (judgeLog).
   */
  readonly views: { readonly ok: boolean; readonly detail?: string };
  /** Signed tree heads the witness cosigned after the last switch, and heads it refused. */
  readonly witness: { readonly cosignedAfterLastSwitch: number; readonly refused: number };
  /** Tokens revoked (acknowledged) before a fault, and whether the final leader still has them. */
  readonly revocations: readonly { readonly jti: string; readonly heldAfter: boolean }[];
  /** REQUEST_DEADLINE_MS, and how much later than it an answer may arrive (transport). */
  readonly deadlineMs: number;
  readonly graceMs: number;
  /**
   * When the driver's loop stood still (its ticker came late): an answer that arrived then was
   * timed only when the loop ran again (see {@link earliestAnswer}).
   */
  readonly driverStalls: readonly DriverStall[];
}

/** One thing the history shows that must not happen. */
export interface Finding {
  readonly kind:
    | 'lost'
    | 'acknowledged-after-switch'
    | 'logged-twice'
    | 'acknowledged-twice'
    | 'position-reused'
    | 'committed-after-acknowledged'
    | 'timeline-order'
    | 'views'
    | 'witness-refused'
    | 'witness-silent'
    | 'revocation-lost'
    | 'bad-answer'
    | 'hang'
    | 'unmeasured';
  readonly detail: string;
}

/** Repeated values of `values`, each once. */
function repeated<T>(values: readonly T[]): T[] {
  const seen = new Set<T>();
  const twice = new Set<T>();
  for (const value of values) (seen.has(value) ? twice : seen).add(value);
  return [...twice];
}

/** The acknowledged writes' findings: each in the final log exactly once, on a live timeline. */
function writeFindings(history: PartitionHistory): Finding[] {
  const findings: Finding[] = [];
  const acknowledged = history.requests.filter((request) => request.status === 200);
  const jtis = acknowledged.map((request) => request.jti ?? '(no jti)');
  for (const jti of repeated(jtis)) findings.push({ kind: 'acknowledged-twice', detail: jti });
  const logged = new Map<string, LoggedToken[]>();
  for (const row of history.loggedTokens) {
    logged.set(row.jti, [...(logged.get(row.jti) ?? []), row]);
  }
  const switchTimes = history.switches.flatMap((change) =>
    change.switchedAt === undefined ? [] : [change.switchedAt],
  );
  for (const request of acknowledged) {
    const rows = logged.get(request.jti ?? '') ?? [];
    if (rows.length === 0) {
      // Missing and acknowledged after a switch: a leader that had been replaced acknowledged it.
      const after = switchTimes.filter((at) => at <= request.endedAt);
      findings.push(
        after.length > 0 && request.startedAt >= Math.min(...after)
          ? { kind: 'acknowledged-after-switch', detail: `${request.jti} at ${request.endedAt}` }
          : { kind: 'lost', detail: `${request.jti} answered at ${request.endedAt}` },
      );
    } else if (rows.length > 1) {
      findings.push({ kind: 'logged-twice', detail: `${request.jti} × ${rows.length}` });
    } else if (rows[0]!.committedAt !== null && rows[0]!.committedAt > request.endedAt + 1000) {
      // The row that is there was committed after the answer: not the write that was answered.
      findings.push({ kind: 'committed-after-acknowledged', detail: String(request.jti) });
    }
  }
  for (const position of repeated(history.positions.map(String))) {
    findings.push({ kind: 'position-reused', detail: position });
  }
  let lastTime: number | undefined;
  for (const [i, change] of history.switches.entries()) {
    const previous = history.switches[i - 1];
    // Timelines strictly increase; times, where Patroni recorded them, never go back.
    const timeWentBack =
      change.switchedAt !== undefined && lastTime !== undefined && change.switchedAt < lastTime;
    if (change.switchedAt !== undefined) lastTime = change.switchedAt;
    if (previous && (change.timeline <= previous.timeline || timeWentBack)) {
      findings.push({
        kind: 'timeline-order',
        detail: `${previous.timeline} then ${change.timeline}`,
      });
    }
  }
  return findings;
}

/**
 * How soon after a stall's end an answer that waited through it is recorded: the loop reads what
 * arrived meanwhile in its first turns back. An answer recorded later came after the stall.
 */
const READ_AFTER_STALL_MS = 350;

/**
 * The earliest the service may have answered `request`, in ms from its start: when it was read,
 * unless it was read in or just after a driver stall. Then it may have arrived any time from the
 * stall's start (before it, the loop would have read it at once); the latest is still the read.
 */
export function earliestAnswer(request: RequestRecord, stalls: readonly DriverStall[]): number {
  // Read during the stall's last turn (an I/O callback's, before the ticker saw it end) or just
  // after it.
  const stall = stalls.find(
    (s) =>
      s.to > request.startedAt &&
      s.from <= request.endedAt &&
      request.endedAt <= s.to + READ_AFTER_STALL_MS,
  );
  return stall ? Math.max(0, stall.from - request.startedAt) : request.endedAt - request.startedAt;
}

/**
 * The answers' findings: 200, or 503 with Retry-After, and none later than the deadline. An answer
 * read just after a driver stall is judged by when it could have come: a hang if even the earliest
 * is late, `unmeasured` (the driver cannot tell) if only the latest is.
 */
function answerFindings(history: PartitionHistory): Finding[] {
  const findings: Finding[] = [];
  const limit = history.deadlineMs + history.graceMs;
  for (const request of history.requests) {
    const atLeast = earliestAnswer(request, history.driverStalls);
    const atMost = request.endedAt - request.startedAt;
    if (atLeast > limit) {
      const stalled =
        atLeast === atMost ? '' : ` (read after a driver stall; ${atMost} ms at most)`;
      findings.push({ kind: 'hang', detail: `${request.status} after ${atLeast} ms${stalled}` });
    } else if (atMost > limit) {
      findings.push({
        kind: 'unmeasured',
        detail: `${request.status} read after a driver stall: ${atLeast}-${atMost} ms, at ${request.startedAt}`,
      });
    }
    if (request.status === 200) continue;
    if (request.status !== 503 || request.retryAfter === null) {
      findings.push({
        kind: 'bad-answer',
        detail: `${request.status} (Retry-After ${request.retryAfter ?? 'absent'}) at ${request.startedAt}`,
      });
    }
  }
  return findings;
}

/**
 * Everything `history` shows that must not happen (empty: the run is clean): an acknowledged token
 * missing from the final leader's log or there twice, a stream position used twice, timelines out
 * of order, views or chain differing from the log, a head the witness refused (a fork) or no head
 * cosigned after the last failover, a revocation gone, an answer other than 200 or 503 with
 * Retry-After, or one later than the deadline (or that a driver stall leaves in doubt: `unmeasured`).
 */
export function checkPartitionHistory(history: PartitionHistory): Finding[] {
  const findings = [...writeFindings(history), ...answerFindings(history)];
  if (!history.views.ok) findings.push({ kind: 'views', detail: history.views.detail ?? '' });
  if (history.witness.refused > 0) {
    findings.push({ kind: 'witness-refused', detail: `${history.witness.refused} heads` });
  }
  if (history.witness.cosignedAfterLastSwitch === 0) {
    findings.push({ kind: 'witness-silent', detail: 'no head cosigned after the last failover' });
  }
  for (const revocation of history.revocations.filter((r) => !r.heldAfter)) {
    findings.push({ kind: 'revocation-lost', detail: revocation.jti });
  }
  return findings;
}
