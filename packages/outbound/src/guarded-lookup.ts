import dns from 'node:dns';
import net from 'node:net';
import type { LookupFunction } from 'node:net';
import { resolvedAddressRefusal, type ConnectTarget, type TargetRules } from './target-rules.js';
import { TargetRefusedError } from './transport.js';

/** `dns.lookup` asked for every address (injectable so a test can play a rebinding name). */
export type Resolver = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/** What a sink's connection is checked against: where it goes, this deployment's rules. */
export interface ConnectGuard extends ConnectTarget {
  readonly rules: TargetRules;
  /** Defaults to `dns.lookup`. */
  readonly resolve?: Resolver;
  /** Lookups pending in the process past which one more is refused at once; default 2. */
  readonly maxPendingLookups?: number;
}

/**
 * Lookups started and not yet returned, process-wide. `dns.lookup` holds one of libuv's 4 pool
 * threads (shared with fs, zlib, crypto) until the resolver gives up, and nothing cancels it:
 * a caller past its deadline has let go, its thread has not. So a stalling nameserver gets this
 * many threads at most, never the pool.
 */
let pendingLookups = 0;

/** Refused because too many lookups are pending: the process's bound, not the name's fault. */
export class LookupBusyError extends Error {}

/**
 * The `lookup` of a sink's connection: resolves the name and refuses it when any of its addresses
 * breaks the sink target rules (target-rules.ts), so the check holds at every connection, not only
 * when the sink was made. Every address is checked, not only the first: the socket may try the
 * others (happy eyeballs) and a rebinding name need only slip one in.
 */
export function guardedLookup(guard: ConnectGuard): LookupFunction {
  const resolve: Resolver = guard.resolve ?? dns.lookup;
  return (hostname, options, callback) => {
    if (pendingLookups >= (guard.maxPendingLookups ?? 2)) {
      const busy = new LookupBusyError('busy: too many name lookups pending, retry shortly');
      return process.nextTick(() => callback(busy, '', 0));
    }
    pendingLookups += 1;
    const settled = (error: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => {
      pendingLookups -= 1;
      if (error) return callback(error, '', 0);
      const refused = addresses
        .map((entry) => resolvedAddressRefusal(entry.address, guard, guard.rules))
        .find(Boolean);
      if (refused) return callback(new TargetRefusedError(refused), '', 0);
      if (options.all) return callback(null, addresses as never, 0);
      const first = addresses[0];
      if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
      callback(null, first.address, first.family);
    };
    try {
      resolve(hostname, { ...options, all: true }, settled);
    } catch (error) {
      // Thrown, not called back: not pending, or the count would leak into a lasting refusal.
      pendingLookups -= 1;
      throw error;
    }
  };
}

/**
 * The same rules for a host given as an IP literal, which a socket connects to without any
 * lookup: undefined for a name (its lookup checks it) or an allowed address.
 */
export function literalRefusal(guard: ConnectGuard): string | undefined {
  return net.isIP(guard.host) ? resolvedAddressRefusal(guard.host, guard, guard.rules) : undefined;
}
