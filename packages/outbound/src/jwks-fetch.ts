import { z } from 'zod';
import type { FetchAsk, GuardedFetcher } from './guarded-fetcher.js';

/** How much of a JWKS document is read: a platform's publishes a handful of keys. */
const JWKS_BYTES = 64 * 1024;

/** A public JWK as a platform publishes it (members jose does not need are left as they are). */
const publicJwk = z
  .object({ kty: z.string().max(10), kid: z.string().max(200).optional() })
  .catchall(z.unknown())
  .refine((jwk) => !('d' in jwk), { message: 'a private key' });

/** A JWKS document: at most 20 public keys. */
export const fetchedJwksSchema = z.object({ keys: z.array(publicJwk).max(20) });
export type FetchedJwks = z.infer<typeof fetchedJwksSchema>;

/** A JWKS document read, with the lifetime its answer gave (`Cache-Control`, when it gave one). */
export interface FetchedAnswer {
  readonly jwks: FetchedJwks;
  readonly cacheControl: string | undefined;
}

/**
 * GETs a JWKS through the process's {@link GuardedFetcher} (SSRF rules, deadline, bounds), at most
 * {@link JWKS_BYTES}. Throws with why, each reason prefixed `jwks_uri: `.
 */
export async function fetchJwks(
  fetcher: GuardedFetcher,
  url: string,
  ask: Omit<FetchAsk, 'maxBytes'>,
): Promise<FetchedAnswer> {
  const { body, cacheControl } = await fetcher
    .getJson(url, { ...ask, maxBytes: JWKS_BYTES })
    .catch((error: Error) => {
      throw new Error(`jwks_uri: ${error.message}`, { cause: error });
    });
  const jwks = fetchedJwksSchema.safeParse(body);
  if (!jwks.success) throw new Error('jwks_uri: not a JWKS document');
  return { jwks: jwks.data, cacheControl };
}

/**
 * {@link fetchJwks} in the shape of `fetch`, for a JWKS cache that takes one (the verifier kit's
 * `remotePublicKeys`): the document checked and re-served as a 200 with its `Cache-Control`.
 * Only the URL and the caller's `signal` are read; any failure rejects, as `fetch` does.
 */
export function guardedJwksFetch(fetcher: GuardedFetcher, scope: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const signal = init?.signal ?? undefined;
    const { jwks, cacheControl } = await fetchJwks(fetcher, url, { scope, signal });
    const headers = cacheControl === undefined ? undefined : { 'cache-control': cacheControl };
    return new Response(JSON.stringify(jwks), { status: 200, headers });
  }) as typeof fetch;
}
