import { jwtVerify } from 'jose';
import { z } from 'zod';
import { ACCESS_TOKEN_ALG } from './algorithms.js';
import type { PublicKeys } from './issuer-keys.js';
import { decodeStatusList, type StatusList } from './status-list-codec.js';

/** The Status List Token's claims the kit reads (draft-ietf-oauth-status-list §5.1). */
const statusListClaims = z.object({
  ttl: z.number().int().positive().optional(),
  status_list: z.object({ bits: z.literal([1, 2, 4, 8]), lst: z.string() }),
});

/** Why a token's status cannot be read now (the list unreachable past `maxStaleMs`): a 503. */
export class StatusListUnavailable extends Error {}
/** Why a token's status list says nothing good of it: a 401. */
export class StatusListRefusal extends Error {}

interface Held {
  readonly list: StatusList;
  readonly checkedAt: number;
  /** When to fetch it again: its `ttl` after it was fetched, at most `maxTtlMs`. */
  readonly refreshAt: number;
}

// A list token of ours is a few KiB; no answer is read past this.
const MAX_BODY_BYTES = 256 * 1024;
const LISTS_HELD = 1000;

/**
 * The status lists a token's `status.status_list.uri` names (§8.3), each fetched once within its
 * `ttl` whatever the tokens that name it: signed by the issuer's keys as `statuslist+jwt`, `sub`
 * the uri, `iss` the token's. Only lists under the issuer's `/spaces/` are fetched (every token of
 * ours names one there), through `fetchBase` when the kit reaches the service at another address.
 * A list that cannot be refreshed serves until `maxStaleMs`, then fails closed (503).
 */
export function createStatusLists(options: {
  readonly keys: PublicKeys;
  readonly serviceBase: string;
  readonly fetchBase: string;
  readonly fetch: typeof fetch;
  readonly now: () => number;
  readonly maxStaleMs: number;
  readonly maxTtlMs?: number;
}) {
  const held = new Map<string, Held>();
  const inFlight = new Map<string, Promise<Held>>();
  const prefix = `${options.serviceBase}/spaces/`;

  const fetchList = async (uri: string, iss: string): Promise<Held> => {
    const response = await options.fetch(
      `${options.fetchBase}${uri.slice(options.serviceBase.length)}`,
      { headers: { accept: 'application/statuslist+jwt' }, signal: AbortSignal.timeout(5000) },
    );
    if (response.status === 404) throw new StatusListRefusal('its status list is unknown');
    if (response.status !== 200) throw new StatusListUnavailable(`status list: ${response.status}`);
    const jwt = await boundedText(response, MAX_BODY_BYTES, () => {
      throw new StatusListRefusal('its status list is too large');
    });
    const { payload } = await jwtVerify(jwt, (header) => keyOf(options.keys, header.kid), {
      typ: 'statuslist+jwt',
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: iss,
      subject: uri,
      currentDate: new Date(options.now()),
    }).catch((error: unknown) => {
      throw new StatusListRefusal(`its status list does not verify (${(error as Error).message})`);
    });
    const claims = statusListClaims.safeParse(payload);
    if (!claims.success) throw new StatusListRefusal('its status list is malformed');
    const { bits, lst } = claims.data.status_list;
    const now = options.now();
    const ttlMs = Math.min((claims.data.ttl ?? 30) * 1000, options.maxTtlMs ?? 300_000);
    return { list: decodeStatusList(lst, bits), checkedAt: now, refreshAt: now + ttlMs };
  };

  const listOf = async (uri: string, iss: string): Promise<Held> => {
    const current = held.get(uri);
    if (current && options.now() < current.refreshAt) return current;
    let pending = inFlight.get(uri);
    if (!pending) {
      pending = fetchList(uri, iss).finally(() => inFlight.delete(uri));
      inFlight.set(uri, pending);
    }
    try {
      const fresh = await pending;
      held.delete(uri);
      held.set(uri, fresh);
      if (held.size > LISTS_HELD) held.delete(held.keys().next().value!);
      return fresh;
    } catch (error) {
      if (error instanceof StatusListRefusal) throw error;
      // Unreachable: the list held serves until it is older than allowed.
      if (current && options.now() - current.checkedAt <= options.maxStaleMs) return current;
      throw new StatusListUnavailable(
        `the token's status list cannot be fetched: ${(error as Error).message}`,
      );
    }
  };

  return {
    /** The token's status (0 VALID); throws a refusal or an unavailability. */
    async statusOf(status: { idx: number; uri: string }, iss: string): Promise<number> {
      if (!status.uri.startsWith(prefix)) {
        throw new StatusListRefusal('its status list is not at its issuer');
      }
      const value = (await listOf(status.uri, iss)).list.status(status.idx);
      if (value === undefined) throw new StatusListRefusal('its status index is past its list');
      return value;
    },
  };
}

/** The key `kid` names, fetching the JWKS again once for a kid not held (a rotation). */
export async function keyOf(keys: PublicKeys, kid: string | undefined) {
  if (kid === undefined) throw new Error('no kid');
  let key = keys.publicKey(kid);
  if (!key) {
    await keys.refreshSoon();
    key = keys.publicKey(kid);
  }
  if (!key) throw new Error(`unknown kid ${kid}`);
  return key;
}

/** A body read as text, at most `maxBytes` of it: past them `tooLarge` throws. */
export async function boundedText(
  message: { readonly body: ReadableStream<Uint8Array> | null },
  maxBytes: number,
  tooLarge: () => never,
): Promise<string> {
  const reader = message.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
