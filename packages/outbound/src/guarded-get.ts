import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalRefusal } from './guarded-lookup.js';
import type { TargetRules } from './target-rules.js';

/** A JSON document read, with the lifetime its answer gave (`Cache-Control`, when it gave one). */
export interface GuardedAnswer {
  readonly body: unknown;
  readonly cacheControl: string | undefined;
}

/**
 * GETs a JSON document under the outbound target rules (target-rules.ts): node:http(s) with the
 * guarded lookup rather than `fetch`, so a name that resolves elsewhere later (DNS rebinding) is
 * judged at each connection; no redirect followed, at most `maxBytes` read, `timeoutMs` for the
 * whole. Throws with why (`refused: …`, `answered 404`, `document too large`, `not JSON`, …).
 */
export function guardedGetJson(
  url: string,
  options: { readonly rules: TargetRules; readonly timeoutMs: number; readonly maxBytes: number },
): Promise<GuardedAnswer> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const guard = {
    host: target.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(target.port || (secure ? 443 : 80)),
    plaintext: !secure,
    rules: options.rules,
  };
  return new Promise((resolve, reject) => {
    const literal = literalRefusal(guard);
    if (literal) return reject(new Error(`refused: ${literal}`));
    const request = (secure ? https : http).get(
      {
        protocol: target.protocol,
        hostname: guard.host,
        port: guard.port,
        path: `${target.pathname}${target.search}`,
        lookup: guardedLookup(guard),
        headers: { accept: 'application/json' },
        timeout: options.timeoutMs,
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          return reject(new Error(`answered ${response.statusCode ?? 0}`));
        }
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read <= options.maxBytes) return chunks.push(chunk);
          // Refused before the socket goes: whatever the stream says next comes too late.
          reject(new Error('document too large'));
          request.destroy();
        });
        response.on('end', () => {
          try {
            const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            resolve({ body, cacheControl: response.headers['cache-control'] });
          } catch {
            reject(new Error('not JSON'));
          }
        });
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer in ${options.timeoutMs} ms`)));
    request.on('error', reject);
  });
}
