import type { Verifier } from './verifier-types.js';
import type { ResourceMetadata } from './resource-metadata.js';

/**
 * The metadata is public and the same for everyone: cacheable, and readable by a browser-based
 * client of another origin (an MCP client in a web page discovers the resource this way).
 */
const HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'public, max-age=3600',
  'access-control-allow-origin': '*',
} as const;

function metadataOf(verifier: Verifier): ResourceMetadata {
  const metadata = verifier.resourceMetadata;
  if (!metadata) {
    throw new TypeError(
      'the verifier has no resourceMetadata: createVerifier({ resourceMetadata })',
    );
  }
  return metadata;
}

/** Whether a request of `method` for `path` (no query) asks for the metadata. */
function asksForMetadata(metadata: ResourceMetadata, method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && metadata.paths.includes(path);
}

/**
 * For a fetch-style `Request`: the RFC 9728 metadata `Response` when the request asks for it (GET
 * of its path, `paths`), else undefined. Throws at once if the verifier has no metadata.
 */
export function resourceMetadataHandler(verifier: Verifier) {
  const metadata = metadataOf(verifier);
  const body = JSON.stringify(metadata.document);
  return (request: Request): Response | undefined =>
    asksForMetadata(metadata, request.method, new URL(request.url).pathname)
      ? new Response(request.method === 'HEAD' ? null : body, { status: 200, headers: HEADERS })
      : undefined;
}

/**
 * Koa middleware serving the RFC 9728 metadata at its path (before any verifying middleware:
 * it is read without a token); other requests pass on.
 */
export function koaResourceMetadata(verifier: Verifier) {
  const metadata = metadataOf(verifier);
  return async (
    ctx: {
      method: string;
      path: string;
      status: number;
      body: unknown;
      set(name: string, value: string): void;
    },
    next: () => Promise<unknown>,
  ): Promise<void> => {
    if (!asksForMetadata(metadata, ctx.method, ctx.path)) return void (await next());
    for (const [name, value] of Object.entries(HEADERS)) ctx.set(name, value);
    ctx.status = 200;
    ctx.body = metadata.document;
  };
}

/**
 * Express middleware serving the RFC 9728 metadata at its path (before any verifying
 * middleware); other requests pass on.
 */
export function expressResourceMetadata(verifier: Verifier) {
  const metadata = metadataOf(verifier);
  return (
    request: { readonly method: string; readonly path: string },
    response: { set(headers: Record<string, string>): { json(body: unknown): void } },
    next: () => void,
  ): void => {
    if (!asksForMetadata(metadata, request.method, request.path)) return next();
    response.set({ ...HEADERS }).json(metadata.document);
  };
}
