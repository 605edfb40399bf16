import { z } from 'zod';
import { guardedGetJson } from './guarded-get.js';
import type { TargetRules } from './target-rules.js';

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
 * GETs a trusted issuer's JWKS under the outbound target rules ({@link guardedGetJson}), at most
 * {@link JWKS_BYTES}. Throws with why, each reason prefixed `jwks_uri: `.
 */
export async function fetchJwks(
  url: string,
  rules: TargetRules,
  timeoutMs: number,
): Promise<FetchedAnswer> {
  const { body, cacheControl } = await guardedGetJson(url, {
    rules,
    timeoutMs,
    maxBytes: JWKS_BYTES,
  }).catch((error: Error) => {
    throw new Error(`jwks_uri: ${error.message}`);
  });
  const jwks = fetchedJwksSchema.safeParse(body);
  if (!jwks.success) throw new Error('jwks_uri: not a JWKS document');
  return { jwks: jwks.data, cacheControl };
}

/**
 * {@link fetchJwks} in the shape of `fetch`, for a JWKS cache that takes one (the verifier kit's
 * `remotePublicKeys`): the document checked and re-served as a 200 with its `Cache-Control`.
 * Only the URL is read; any failure rejects, as `fetch` does.
 */
export function guardedJwksFetch(rules: TargetRules, timeoutMs: number): typeof fetch {
  return (async (input: string | URL | Request) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const { jwks, cacheControl } = await fetchJwks(url, rules, timeoutMs);
    const headers = cacheControl === undefined ? undefined : { 'cache-control': cacheControl };
    return new Response(JSON.stringify(jwks), { status: 200, headers });
  }) as typeof fetch;
}
