import { z } from 'zod';
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
}

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

  const refresh = async (spaceId: string): Promise<Held | undefined> => {
    const current = held.get(spaceId);
    try {
      const url = `${options.issuer}/v1/revocations?space_id=${encodeURIComponent(spaceId)}`;
      const response = await options.fetch(url, {
        headers: current?.etag ? { 'if-none-match': current.etag } : {},
        signal: AbortSignal.timeout(5000),
      });
      if (response.status === 304 && current) {
        const confirmed = { ...current, checkedAt: options.now() };
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
      held.set(spaceId, next);
      return next;
    } catch {
      return current;
    }
  };

  return {
    /** The space's list, refreshed first when it is older than refreshMs. */
    async of(spaceId: string): Promise<Held> {
      let list = held.get(spaceId);
      if (!list || options.now() - list.checkedAt >= options.refreshMs) {
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
