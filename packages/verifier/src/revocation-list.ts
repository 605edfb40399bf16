import { z } from 'zod';
import type { Heard } from './signals.js';
import type { RevokedSet } from './token-rules.js';

/** A space's revocation list as GET /v1/revocations serves it; what the kit reads of it. */
const revocationListSchema = z.object({
  clients: z.array(z.object({ client_id: z.string(), revoked_at: z.string() })),
  tokens: z.array(z.object({ jti: z.string(), exp: z.number() })),
  /** Absent from a service that predates scopes. */
  narrowed_clients: z
    .array(z.object({ client_id: z.string(), scopes: z.array(z.string()) }))
    .optional(),
  /** Absent from a service that predates key withdrawals in the list (issue 51). */
  withdrawn_keys: z.array(z.object({ kid: z.string() })).optional(),
  /** Absent from a service that predates metadata-document clients' domains in the list. */
  removed_client_domains: z.array(z.object({ domain: z.string() })).optional(),
  /** Absent from a service that predates narrowed domains in the list. */
  narrowed_client_domains: z
    .array(z.object({ domain: z.string(), scopes: z.array(z.string()) }))
    .optional(),
});

interface Held {
  /** Revoked tokens, clients (and when, ms) and withdrawn signing keys (policy.revokedByList). */
  readonly revoked: RevokedSet;
  /** Clients narrowed since their tokens may have been issued, and the scopes they allow now. */
  readonly narrowedClients: ReadonlyMap<string, readonly string[]>;
  /** The same for metadata-document clients, by their URL's domain. */
  readonly narrowedDomains: ReadonlyMap<string, readonly string[]>;
  readonly etag: string | null;
  /** When this list was last confirmed current (ms). */
  readonly checkedAt: number;
  /** A SET said something changed that only the list tells: read it at the next check. */
  readonly forced?: boolean;
}

// News held per space between two reads of its list: a flood of SETs cannot grow it past this.
const MAX_HEARD = 10_000;
const HEARD_KEPT_MS = 24 * 3600 * 1000;

/** Why a token cannot be judged: the list is older than allowed and cannot be refreshed. */
export class RevocationListUnavailable extends Error {}

/**
 * Each space's revocation list, polled from GET /v1/revocations with `If-None-Match` (a 304
 * costs the issuer almost nothing): refreshed when older than `refreshMs`, and refused
 * (fail closed) when it could not be confirmed for `maxStaleMs`.
 */
export function createRevocationLists(options: {
  readonly issuer: string;
  readonly refreshMs: number;
  readonly maxStaleMs: number;
  readonly fetch: typeof fetch;
  readonly now: () => number;
}) {
  const held = new Map<string, Held>();
  const inFlight = new Map<string, Promise<Held | undefined>>();
  // What pushed SETs told of each space, and when: a revocation is kept until a list read holds
  // it (a list may be older than its read: the service's cache, a CDN's), a day at most; a
  // "read the list again" until a read begun after it.
  const pushed = new Map<string, Array<{ readonly heard: Heard; readonly at: number }>>();

  /**
   * `list` with what was heard and it does not hold. `read`: when the list was asked for, if it
   * was; `served`: it is the service's own answer (a 200), so what it holds needs keeping no more.
   */
  const withHeard = (spaceId: string, list: Held, read?: number, served = false): Held => {
    const now = options.now();
    const news = (pushed.get(spaceId) ?? []).filter(({ heard, at }) => {
      if (now - at > HEARD_KEPT_MS) return false;
      if ('token' in heard) return !served || !list.revoked.tokens.has(heard.token);
      if ('client' in heard) return !served || !list.revoked.clients.has(heard.client);
      return read === undefined || at >= read;
    });
    if (news.length > 0) pushed.set(spaceId, news);
    else pushed.delete(spaceId);
    if (news.length === 0) return list;
    const tokens = new Set(list.revoked.tokens);
    const clients = new Map(list.revoked.clients);
    let forced = false;
    for (const { heard } of news) {
      if ('token' in heard) tokens.add(heard.token);
      else if ('client' in heard) clients.set(heard.client, heard.at);
      // Read again at the next check: what changed is the list's to say.
      else forced = true;
    }
    return { ...list, revoked: { ...list.revoked, tokens, clients }, forced };
  };

  const refresh = async (spaceId: string): Promise<Held | undefined> => {
    const current = held.get(spaceId);
    const started = options.now();
    try {
      const url = `${options.issuer}/v1/revocations?space_id=${encodeURIComponent(spaceId)}`;
      const response = await options.fetch(url, {
        headers: current?.etag ? { 'if-none-match': current.etag } : {},
        signal: AbortSignal.timeout(5000),
      });
      if (response.status === 304 && current) {
        const confirmed = withHeard(
          spaceId,
          { ...current, checkedAt: options.now(), forced: false },
          started,
        );
        held.set(spaceId, confirmed);
        return confirmed;
      }
      if (response.status !== 200) return current;
      // A list that is not one is no answer: the held list serves, within its staleness bound.
      const parsed = revocationListSchema.safeParse(await response.json());
      if (!parsed.success) return current;
      const list = parsed.data;
      const next: Held = {
        revoked: {
          tokens: new Set(list.tokens.map((token) => token.jti)),
          clients: new Map(
            list.clients.map((client) => [client.client_id, Date.parse(client.revoked_at)]),
          ),
          keys: new Set((list.withdrawn_keys ?? []).map((key) => key.kid)),
          domains: new Set((list.removed_client_domains ?? []).map((entry) => entry.domain)),
        },
        narrowedClients: new Map(
          (list.narrowed_clients ?? []).map((client) => [client.client_id, client.scopes]),
        ),
        narrowedDomains: new Map(
          (list.narrowed_client_domains ?? []).map((entry) => [entry.domain, entry.scopes]),
        ),
        etag: response.headers.get('etag'),
        checkedAt: options.now(),
      };
      const heard = withHeard(spaceId, next, started, true);
      held.set(spaceId, heard);
      return heard;
    } catch {
      return current;
    }
  };

  return {
    /**
     * A pushed SET's news (signals.ts), in force at once: the held list takes it now, and lists
     * read before it arrived take it too, until one read after it.
     */
    heard(spaceId: string, heard: Heard): void {
      const at = options.now();
      pushed.set(spaceId, [...(pushed.get(spaceId) ?? []), { heard, at }].slice(-MAX_HEARD));
      const list = held.get(spaceId);
      if (list) held.set(spaceId, withHeard(spaceId, list));
    },
    /** The space's list, refreshed first when it is older than refreshMs. */
    async of(spaceId: string): Promise<Held> {
      let list = held.get(spaceId);
      if (!list || list.forced || options.now() - list.checkedAt >= options.refreshMs) {
        let pending = inFlight.get(spaceId);
        if (!pending) {
          pending = refresh(spaceId).finally(() => inFlight.delete(spaceId));
          inFlight.set(spaceId, pending);
        }
        list = (await pending) ?? list;
      }
      if (!list || options.now() - list.checkedAt > options.maxStaleMs) {
        throw new RevocationListUnavailable(
          `the revocation list of ${spaceId} cannot be refreshed`,
        );
      }
      return list;
    },
  };
}
