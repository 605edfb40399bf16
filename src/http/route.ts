import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { z } from 'zod';
import { clientActor, userActor } from '../domain/actors.js';
import type { AccessTokenVerifier, PrivateTokenClaims } from '../crypto/access-tokens.js';
import type { DpopProof } from '../crypto/dpop.js';
import { mayManageStreams, ROUTE_POLICIES, type RoutePolicy } from '../domain/policy.js';
import { STREAMS_SCOPE } from '../domain/security-signals.js';
import { presentedToken, proofForToken, type DpopGate } from './dpop.js';
import type { LoginIdentity } from '../crypto/login-tokens.js';
import { requireLoginForSpace, type LoginGate } from './authentication.js';
import { readBody } from './body.js';
import { InsufficientScopeError, type ErrorCode } from '../errors/errors.js';
import { BODY_ERRORS, LOGIN_ERRORS, type Caller, type Operation } from './openapi/operation.js';
import { errorDialect } from './request-context.js';
import { validate } from './validate.js';
import type { ErrorDialect, RequestContext, RequestState } from './state.js';

/** What a route's authentication hands its handler, by who may call it. */
export interface Authenticated {
  readonly public: Record<never, never>;
  /** Client routes authenticate in the handler: the credentials may be in the body. */
  readonly client: Record<never, never>;
  readonly login: {
    readonly user: LoginIdentity;
    readonly spaceId: string;
    readonly actor: string;
  };
  readonly 'private-token': {
    readonly privateToken: PrivateTokenClaims;
    readonly actor: string;
    /** The request's DPoP proof, checked (required for a DPoP-bound private token). */
    readonly dpop?: DpopProof;
  };
}

/**
 * One route, declared once: its OpenAPI operation (which also says who may call it, its error
 * dialect and the body it reads) and its handler. {@link mountRoutes} derives the middleware from
 * the operation, so what is documented is what runs.
 */
export type Route = { readonly [C in Caller]: RouteOf<C> }[Caller];

/** The route policies whose caller is `C` (a login route's: space-read or space-change). */
export type PolicyOf<C extends Caller> = {
  [P in RoutePolicy]: (typeof ROUTE_POLICIES)[P]['caller'] extends C ? P : never;
}[RoutePolicy];

/** A route callable by `C`: its handler gets what `C`'s authentication learnt. */
export type RouteOf<C extends Caller> = Operation & {
  readonly caller: C;
  /**
   * Who may take it (src/domain/policy/routes.ts), declared next to its method and path; the gate
   * applies it. test/unit/policy-routes.test.ts fails on a route of the app without one.
   */
  readonly policy: PolicyOf<C>;
  /** Runs before authentication (e.g. to send another route's 405 first). */
  readonly guard?: Middleware<RequestState>;
  handle(ctx: RequestContext, auth: Authenticated[C]): unknown;
};

/** The caller a route policy admits. */
export type CallerOf<P extends RoutePolicy> = (typeof ROUTE_POLICIES)[P]['caller'];

/** Each caller's error dialect: RFC 6749 §5.2 for a client, RFC 6750 behind a token, else RFC 9457. */
const DIALECT = {
  public: 'problem',
  client: 'oauth',
  login: 'bearer',
  'private-token': 'bearer',
} as const satisfies Record<Caller, ErrorDialect>;

/**
 * Declares a route: method, path and who may take it (src/domain/policy/routes.ts), then the rest.
 * The policy names the caller, the caller the error dialect; `errors` are the route's own, after
 * what every login route and every route with a body may answer. The handler reads its declared
 * path, query and body through `input`, validated with the schemas the document shows.
 */
export function route<
  P extends RoutePolicy,
  Params extends z.ZodObject = z.ZodObject,
  Query extends z.ZodObject = z.ZodObject,
  Body extends z.ZodType = z.ZodType,
>(
  method: Operation['method'],
  path: string,
  policy: P,
  definition: Omit<
    Operation,
    'method' | 'path' | 'caller' | 'errors' | 'dialect' | 'params' | 'query' | 'body'
  > & {
    readonly params?: Params;
    readonly query?: Query;
    readonly body?: Omit<NonNullable<Operation['body']>, 'schema'> & { readonly schema: Body };
    readonly errors?: readonly ErrorCode[];
    readonly guard?: Middleware<RequestState>;
    handle(
      ctx: RequestContext,
      auth: Authenticated[CallerOf<P>],
      input: { params: z.infer<Params>; query: z.infer<Query>; body: z.infer<Body> },
    ): unknown;
  },
): Route {
  const caller = ROUTE_POLICIES[policy].caller;
  const errors = [
    ...(caller === 'login' ? LOGIN_ERRORS : []),
    ...(definition.body ? BODY_ERRORS : []),
    ...(definition.errors ?? []),
  ];
  const handle = (ctx: RequestContext, auth: Authenticated[CallerOf<P>]) =>
    definition.handle(ctx, auth, new DeclaredInput(ctx, definition) as never);
  const dialect = DIALECT[caller];
  return { method, path, policy, caller, ...definition, errors, dialect, handle } as Route;
}

/**
 * A handler's declared path, query and body, each validated when it first reads it (400 if bad).
 * A class, not accessors defined per request: this is on every token's path.
 */
class DeclaredInput {
  constructor(
    private readonly ctx: RequestContext,
    private readonly operation: Partial<Operation>,
  ) {}
  get params(): unknown {
    return validate(this.operation.params!, this.ctx.params, 'path');
  }
  get query(): unknown {
    return validate(this.operation.query!, this.ctx.query, 'query');
  }
  get body(): unknown {
    return validate(this.operation.body!.schema, this.ctx.request.body, 'body');
  }
}

/** What authentication and body reading need. */
export interface RouteGates {
  readonly login: LoginGate;
  readonly verifier: AccessTokenVerifier;
  /** Stream management's tokens (policy `stream-receiver`), refused by `verifier`. */
  readonly streamsVerifier: AccessTokenVerifier;
  readonly bodyLimitBytes: number;
  /** TOKEN_ISSUER: the public base URL DPoP proofs name (htu). */
  readonly issuer: string;
}

/** The OpenAPI operation of a route (its declaration without the code). */
export function operationOf(route: Route): Operation {
  const { handle: _handle, guard: _guard, policy: _policy, ...operation } = route;
  return operation;
}

/** The route's declared policy; throws for a route without one, or one for another caller. */
export function policyOf(route: Route): RoutePolicy {
  const declared = (route as { readonly policy?: unknown }).policy;
  if (typeof declared !== 'string' || !Object.hasOwn(ROUTE_POLICIES, declared)) {
    throw new Error(`${route.operationId} declares no route policy (src/domain/policy/routes.ts)`);
  }
  const policy = declared as RoutePolicy;
  if (ROUTE_POLICIES[policy].caller !== route.caller) {
    throw new Error(`${route.operationId}: policy ${policy} is not for a ${route.caller} caller`);
  }
  return policy;
}

/**
 * A Koa router serving `routes`: error dialect, guard, authentication, body, then the handler.
 * Public routes that read no body need no gates.
 */
export function mountRoutes(routes: readonly Route[], gates?: RouteGates): Router<RequestState> {
  const router = new Router<RequestState>();
  for (const route of routes) {
    const policy = policyOf(route);
    if (!gates && (policy !== 'public' || route.body)) {
      throw new Error(`${route.operationId} needs the authentication and body gates`);
    }
    const steps: Middleware<RequestState>[] = [errorDialect(route.dialect)];
    if (route.guard) steps.push(route.guard);
    const authenticate = gates && AUTHENTICATE[route.caller](gates, route, policy as never);
    if (authenticate) steps.push(authenticate.middleware);
    if (route.body) {
      steps.push(
        readBody(route.body.media, gates!.bodyLimitBytes, { optional: route.body.optional }),
      );
    }
    router[route.method](route.path, ...(steps as never[]), async (ctx: RequestContext) => {
      await route.handle(ctx, (authenticate?.of(ctx) ?? {}) as never);
    });
  }
  return router;
}

/** Per caller: the middleware that authenticates, and what it learnt, read back from the state. */
const AUTHENTICATE: {
  readonly [C in Caller]: (
    gates: RouteGates,
    route: Operation,
    policy: PolicyOf<C>,
  ) =>
    { middleware: Middleware<RequestState>; of(ctx: RequestContext): Authenticated[C] } | undefined;
} = {
  public: () => undefined,
  client: () => undefined,
  login: (gates, route, policy) => {
    return {
      middleware: requireLoginForSpace(gates.login, route.operationId, policy),
      of: (ctx) => {
        const { user, spaceId } = ctx.state;
        if (!user || !spaceId) throw new Error('login route without an authenticated user');
        return { user, spaceId, actor: userActor(user.subject) };
      },
    };
  },
  'private-token': (gates, _route, policy) => {
    const dpop: DpopGate = { origin: gates.issuer, limits: gates.login.limits };
    const receiver = policy === 'stream-receiver';
    const verifier = receiver ? gates.streamsVerifier : gates.verifier;
    return {
      middleware: async (ctx, next) => {
        const presented = presentedToken(ctx);
        const claims = await verifier.verify(presented.token, 'private');
        if (receiver && !mayManageStreams(claims)) {
          throw new InsufficientScopeError(`this token does not carry the ${STREAMS_SCOPE} scope`);
        }
        ctx.state.privateToken = claims;
        ctx.state.clientId = claims.client_id;
        ctx.state.dpop = await proofForToken(ctx, dpop, presented, claims);
        await next();
      },
      of: (ctx) => {
        const { privateToken, dpop } = ctx.state;
        if (!privateToken) throw new Error('private-token route without a verified token');
        return { privateToken, actor: clientActor(privateToken.client_id), dpop };
      },
    };
  },
};
