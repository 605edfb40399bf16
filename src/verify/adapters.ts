import {
  VerifyError,
  type VerifiableRequest,
  type VerifiedToken,
  type Verifier,
} from './verifier.js';

type Kinds = { readonly kinds?: readonly ('private' | 'public')[] };

/** A fetch-style `Request` (Web API: Deno, Bun, Hono, Next.js route handlers, Workers). */
export function fromFetchRequest(request: Request): VerifiableRequest {
  return {
    method: request.method,
    url: request.url,
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
 * Verifies a fetch-style Request: the token's claims, or a Response to send back as it is.
 */
export async function verifyFetchRequest(
  verifier: Verifier,
  request: Request,
  options?: Kinds,
): Promise<{ readonly token: VerifiedToken } | { readonly refusal: Response }> {
  try {
    return { token: await verifier.verify(fromFetchRequest(request), options) };
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
  readonly protocol?: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  get?(name: string): string | undefined;
}

function fromNode(request: NodeStyleRequest, host: string | undefined, protocol: string) {
  const header = (name: string) => {
    const value = request.headers[name.toLowerCase()];
    return Array.isArray(value) ? value.join(',') : value;
  };
  const path = request.originalUrl ?? request.url ?? '/';
  return { method: request.method, url: `${protocol}://${host ?? header('host')}${path}`, header };
}

/**
 * Koa middleware: the verified claims in `ctx.state.token`, or the refusal answered. The URL
 * DPoP proofs are checked against is the one Koa reconstructs (`app.proxy` for X-Forwarded-*).
 */
export function koaVerifier(verifier: Verifier, options?: Kinds) {
  return async (
    ctx: {
      request: NodeStyleRequest & { readonly protocol: string; readonly host: string };
      state: Record<string, unknown>;
      status: number;
      body: unknown;
      set(name: string, value: string): void;
    },
    next: () => Promise<unknown>,
  ): Promise<void> => {
    try {
      ctx.state.token = await verifier.verify(
        fromNode(ctx.request, ctx.request.host, ctx.request.protocol),
        options,
      );
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

/** Express middleware: the verified claims in `res.locals.token`, or the refusal answered. */
export function expressVerifier(verifier: Verifier, options?: Kinds) {
  return (
    request: NodeStyleRequest & {
      readonly protocol: string;
      get(name: string): string | undefined;
    },
    response: {
      locals: Record<string, unknown>;
      status(code: number): { set(name: string, value: string): { json(body: unknown): void } };
    },
    next: (error?: unknown) => void,
  ): void => {
    verifier
      .verify(fromNode(request, request.get('host'), request.protocol), options)
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
