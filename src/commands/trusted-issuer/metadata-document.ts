import { calculateJwkThumbprint, type JWK } from 'jose';
import { z } from 'zod';
import { BoundedCache } from '../../crypto/bounded-cache.js';
import type { GuardedFetcher } from '#outbound/guarded-fetcher.js';
import { clientJwksSchema, type ClientJwks } from '../../domain/event-data/credential.js';
import { metadataDocumentRefusal } from '../../domain/metadata-client/decide.js';
import { fetchJwks } from '#outbound/jwks-fetch.js';

/** The draft's §6.6 advice: a client metadata document of more than 5 KB is refused. */
const DOCUMENT_BYTES = 5 * 1024;

/** The members of a document the token endpoint reads (the rest are the client's own). */
const documentSchema = z.object({
  client_id: z.string().max(512),
  token_endpoint_auth_method: z.string().max(100).optional(),
  client_secret: z.unknown().optional(),
  jwks: clientJwksSchema.optional(),
  jwks_uri: z.url().max(2000).optional(),
  redirect_uris: z.array(z.string().max(2000)).max(20).optional(),
  client_name: z.string().max(200).optional(),
  logo_uri: z.url().max(2000).optional(),
  client_uri: z.url().max(2000).optional(),
});

/** A document judged good: its keys, their thumbprints, until when it is held. */
export interface MetadataClient {
  readonly jwks: ClientJwks;
  readonly thumbprints: readonly string[];
  readonly fetchedAt: number;
  readonly expiresAt: number;
  /** Where its authorization responses may go (none: it uses no authorization endpoint). */
  readonly redirectUris: readonly string[];
  /** What it says of itself, shown to the customer as its own words. */
  readonly about: {
    readonly name?: string;
    readonly logoUri?: string;
    readonly clientUri?: string;
  };
}

/** Cache-Control's `max-age` in seconds, 0 for `no-store`/`no-cache`, undefined when silent. */
function maxAgeOf(header: string | undefined): number | undefined {
  if (!header) return undefined;
  if (/\bno-(store|cache)\b/i.test(header)) return 0;
  const age = /\bmax-age=(\d+)/i.exec(header)?.[1];
  return age === undefined ? undefined : Number(age);
}

/** The client ID metadata documents this process fetched, by URL. */
export interface MetadataDocuments {
  /** The document at `url`: fetched when not held, or `refresh` and held 30 s; `held`: never. */
  clientAt(
    url: string,
    options: { spaceId: string; refresh?: boolean; held?: boolean },
  ): Promise<MetadataClient>;
}

/** Documents fetched under the SSRF rules, held per Cache-Control up to `maxAgeSeconds`, bounded. */
export function createMetadataDocuments(options: {
  readonly fetcher: GuardedFetcher;
  /** The document and its jwks_uri together, wall clock. */
  readonly timeoutMs: number;
  readonly maxEntries: number;
  readonly maxAgeSeconds: number;
  readonly now: () => number;
}): MetadataDocuments {
  const cache = new BoundedCache<string, MetadataClient>(options.maxEntries);
  const fetched = async (url: string, scope: string): Promise<MetadataClient> => {
    // https only (the draft's §3): judged before, held here too, as no plaintext fetch may start.
    if (!url.startsWith('https://')) throw new Error('must be an https URL');
    const ask = { scope, signal: AbortSignal.timeout(options.timeoutMs) };
    const { body, cacheControl } = await options.fetcher.getJson(url, {
      ...ask,
      maxBytes: DOCUMENT_BYTES,
    });
    const maxAge = maxAgeOf(cacheControl);
    const parsed = documentSchema.safeParse(body);
    if (!parsed.success) throw new Error('not a client metadata document');
    const why = metadataDocumentRefusal(url, parsed.data);
    if (why) throw new Error(why);
    const { data } = parsed;
    // A public client (`none`) may have no keys: it authenticates nowhere, PKCE proves its codes.
    const keyless = data.jwks === undefined && data.jwks_uri === undefined;
    const jwks: ClientJwks = keyless
      ? { keys: [] }
      : clientJwksSchema.parse(
          data.jwks ?? (await fetchJwks(options.fetcher, data.jwks_uri!, ask)).jwks,
        );
    const seconds = Math.min(maxAge ?? options.maxAgeSeconds, options.maxAgeSeconds);
    const now = options.now();
    const client = {
      jwks,
      thumbprints: await Promise.all(jwks.keys.map((key) => calculateJwkThumbprint(key as JWK))),
      fetchedAt: now,
      expiresAt: now + seconds * 1000,
      redirectUris: data.redirect_uris ?? [],
      about: {
        ...(data.client_name === undefined ? {} : { name: data.client_name }),
        ...(data.logo_uri === undefined ? {} : { logoUri: data.logo_uri }),
        ...(data.client_uri === undefined ? {} : { clientUri: data.client_uri }),
      },
    };
    if (seconds > 0) cache.set(url, client);
    return client;
  };
  return {
    async clientAt(url, { spaceId, refresh = false, held: only = false }) {
      const held = cache.get(url);
      const now = options.now();
      if (held && now < held.expiresAt && !(refresh && now - held.fetchedAt >= 30_000)) return held;
      if (only) throw new Error('not held, and not fetched for a caller locked out');
      return fetched(url, spaceId);
    },
  };
}
