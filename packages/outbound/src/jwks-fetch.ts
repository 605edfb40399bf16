import http from 'node:http';
import https from 'node:https';
import { z } from 'zod';
import { guardedLookup, literalRefusal } from './guarded-lookup.js';
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
 * GETs a trusted issuer's JWKS under the outbound target rules (target-rules.ts):
 * node:http(s) with the guarded lookup rather than `fetch`, so a name that resolves elsewhere
 * later (DNS rebinding) is judged at each connection; no redirect followed, at most
 * {@link JWKS_BYTES} read, `timeoutMs` for the whole. Throws with why on any failure.
 */
export function fetchJwks(
  url: string,
  rules: TargetRules,
  timeoutMs: number,
): Promise<FetchedAnswer> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const guard = {
    host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(target.port || (secure ? 443 : 80)),
    plaintext: !secure,
    rules,
  };
  return new Promise((resolve, reject) => {
    const literal = literalRefusal(guard);
    if (literal) return reject(new Error(`jwks_uri refused: ${literal}`));
    const request = (secure ? https : http).get(
      {
        protocol: target.protocol,
        hostname: guard.host,
        port: guard.port,
        path: `${target.pathname}${target.search}`,
        lookup: guardedLookup(guard),
        headers: { accept: 'application/json' },
        timeout: timeoutMs,
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return reject(new Error(`jwks_uri answered ${response.statusCode ?? 0}`));
        }
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > JWKS_BYTES) return request.destroy(new Error('jwks_uri: document too large'));
          chunks.push(chunk);
        });
        response.on('end', () => {
          try {
            const text = Buffer.concat(chunks).toString('utf8');
            const jwks = fetchedJwksSchema.parse(JSON.parse(text));
            resolve({ jwks, cacheControl: response.headers['cache-control'] });
          } catch {
            reject(new Error('jwks_uri: not a JWKS document'));
          }
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () =>
      request.destroy(new Error(`jwks_uri: no answer in ${timeoutMs} ms`)),
    );
    request.on('error', reject);
  });
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
