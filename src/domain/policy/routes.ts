/**
 * Who may call a route: every route declares one of these next to its method and path
 * (src/http/route.ts), and the route gate applies it before the handler runs.
 */
import { roleMayChange, userHasSpace } from './spaces-and-roles.js';

/**
 * The route policies, by name. `caller` is who authenticates (the OpenAPI security of the route);
 * `changes` whether a login route changes something, so needs a role that may change.
 */
export const ROUTE_POLICIES = {
  /** Anyone, unauthenticated: health, keys, discovery, documents, the revocation list. */
  public: { caller: 'public' },
  /** A client proving itself with its secret or assertion (read in the handler: it may be in the body). */
  client: { caller: 'client' },
  /** A client's private token (never a public one), with its DPoP proof when bound. */
  'private-token': { caller: 'private-token' },
  /** A dashboard user whose login token lists the space: every role reads. */
  'space-read': { caller: 'login', changes: false },
  /** A dashboard user whose login token lists the space, in a role that may change it. */
  'space-change': { caller: 'login', changes: true },
} as const;

/** A route policy's name. */
export type RoutePolicy = keyof typeof ROUTE_POLICIES;

/** The policies of the routes a dashboard user's login token opens. */
export type LoginRoutePolicy = {
  [P in RoutePolicy]: (typeof ROUTE_POLICIES)[P]['caller'] extends 'login' ? P : never;
}[RoutePolicy];

/** Why a login route refuses a user: the space is not theirs, or their role changes nothing. */
export type LoginRefusal = 'space_not_granted' | 'role_forbidden';

/**
 * Whether a dashboard user may take a login route in a space: the space first (a refused
 * cross-space attempt says so, whatever the role), then the role, for a route that changes.
 */
export function loginRefusal(
  policy: LoginRoutePolicy,
  user: { readonly spaces: readonly string[]; readonly role: string },
  spaceId: string,
): LoginRefusal | undefined {
  if (!userHasSpace(user, spaceId)) return 'space_not_granted';
  if (ROUTE_POLICIES[policy].changes && !roleMayChange(user.role)) return 'role_forbidden';
  return undefined;
}
