import type { LogPosition } from '../recorded-event.js';

/** a before b in commit-safe order: negative, 0 when equal, positive after. */
export function compareLogPositions(a: LogPosition, b: LogPosition): number {
  const byTransaction = BigInt(a.transactionId) - BigInt(b.transactionId);
  if (byTransaction !== 0n) return byTransaction < 0n ? -1 : 1;
  return a.globalPosition - b.globalPosition;
}
