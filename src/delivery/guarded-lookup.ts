import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { resolvedAddressRefusal } from './target-rules.js';

/**
 * `dns.lookup` for a sink's connection that refuses a name resolving into the link-local range:
 * a name checked when the sink was made may resolve elsewhere later (DNS rebinding).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.map((entry) => resolvedAddressRefusal(entry.address)).find(Boolean);
    if (refused) return callback(new Error(`${hostname} ${refused}`), '', 0);
    if (options.all) return callback(null, addresses as never, 0);
    const first = addresses[0];
    if (!first) return callback(new Error(`${hostname} did not resolve`), '', 0);
    callback(null, first.address, first.family);
  });
};
