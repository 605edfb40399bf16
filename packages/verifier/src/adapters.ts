import type { RouteRequirements, VerifiableRequest, VerifiedToken, Verifier } from './verifier.js';
import { declaredScopes } from './required-scopes.js';
import { declaredDelegation } from './delegation-rule.js';
import { VerifyError } from './verify-error.js';

/**
 * Options of the Koa and Express adapters: one middleware per route (or router), with the token
 * kinds, the scopes (`requiredScopes`, all of them) and the delegation (`delegation`, `agents`)
 * it requires.
 */
export interface NodeAdapterOptions extends RouteRequirements {
  /**
   * This resource server's public origin (`https://api.example.com`): the URL DPoP proofs must
   * name is it and the request's path. Configured, because Host and X-Forwarded-Host are
   * whatever the client sent.
   */
  readonly origin: string;
}

/** The URL a proof must name: `origin` (configured) and the path of `pathAndQuery`. */
function urlAt(origin: string, pathAndQuery: string): string {
  return new URL(pathAndQuery, `${origin.replace(/\/+$/, '')}/`).href;
}

/**
 * A fetch-style `Request` (Web API: Deno, Bun, Hono, Next.js route handlers, Workers). With
 * `origin`, proofs are checked against it and the request's path instead of `request.url`, for
 * runtimes that build `request.url` from the Host header.
 */
export function fromFetchRequest(request: Request, origin?: string): VerifiableRequest {
  const url = origin === undefined ? request.url : urlAt(origin, new URL(request.url).pathname);
  return {
    method: request.method,
    url,
    header: (name) => request.headers.get(name) ?? undefined,
  };
}

/** The answer to give for a refused request, as a fetch `Response`. */
export function refusalResponse(error: VerifyError): Response {
  return new Response(JSON.stringify({ error: error.code, error_description: error.message }), {
    status: error.status,
    headers: {
      'content-type': 'application/json',
      'www-authenticate': error.challenge,
      ...(error.status === 503 ? { 'retry-after': '5' } : {}),
    },
  });
}

/**
 * Verifies a fetch-style Request: the token's claims, or a Response to send back as it is (403
 * with `error="insufficient_scope"` when the token lacks one of `options.requiredScopes`).
 */
export async function verifyFetchRequest(
  verifier: Verifier,
  request: Request,
  options?: RouteRequirements & { readonly origin?: string },
): Promise<{ readonly token: VerifiedToken } | { readonly refusal: Response }> {
  try {
    return { token: await verifier.verify(fromFetchRequest(request, options?.origin), options) };
  } catch (error) {
    if (error instanceof VerifyError) return { refusal: refusalResponse(error) };
    throw error;
  }
}

/** The request shape Koa and Express share enough of. */
interface NodeStyleRequest {
  readonly method: string;
  readonly originalUrl?: string;
  readonly url?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  get?(name: string): string | undefined;
}

function fromNode(request: NodeStyleRequest, origin: string): VerifiableRequest {
  const header = (name: string) => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const path = request.originalUrl ?? request.url ?? '/';
  return { method: request.method, url: urlAt(origin, path), header };
}

/**
 * Koa middleware: the verified claims in `ctx.state.token`, or the refusal answered (401, 403
 * for a missing scope, 503). DPoP proofs are checked against `options.origin` and the request's
 * path. A malformed `requiredScopes` or `delegation` throws here, at startup.
 */
export function koaVerifier(verifier: Verifier, options: NodeAdapterOptions) {
  declaredScopes(options.requiredScopes);
  declaredDelegation(options);
  return async (
    ctx: {
      request: NodeStyleRequest;
      state: Record<string, unknown>;
      status: number;
      body: unknown;
      set(name: string, value: string): void;
    },
    next: () => Promise<unknown>,
  ): Promise<void> => {
    try {
      ctx.state.token = await verifier.verify(fromNode(ctx.request, options.origin), options);
    } catch (error) {
      if (!(error instanceof VerifyError)) throw error;
      ctx.status = error.status;
      ctx.set('WWW-Authenticate', error.challenge);
      ctx.body = { error: error.code, error_description: error.message };
      return;
    }
    await next();
  };
}

/**
 * Express middleware: the verified claims in `res.locals.token`, or the refusal answered (401,
 * 403 for a missing scope, 503). DPoP proofs are checked against `options.origin` and the
 * request's path. A malformed `requiredScopes` or `delegation` throws here, at startup.
 */
export function expressVerifier(verifier: Verifier, options: NodeAdapterOptions) {
  declaredScopes(options.requiredScopes);
  declaredDelegation(options);
  return (
    request: NodeStyleRequest,
    response: {
      locals: Record<string, unknown>;
      status(code: number): { set(name: string, value: string): { json(body: unknown): void } };
    },
    next: (error?: unknown) => void,
  ): void => {
    verifier
      .verify(fromNode(request, options.origin), options)
      .then((token) => {
        response.locals.token = token;
        next();
      })
      .catch((error: unknown) => {
        if (!(error instanceof VerifyError)) return next(error);
        response
          .status(error.status)
          .set('WWW-Authenticate', error.challenge)
          .json({ error: error.code, error_description: error.message });
      });
  };
}
