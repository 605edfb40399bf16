/** Who may call a route; declared beside it (src/http/route.ts), applied before the handler. */
import { roleMayChange, userHasSpace } from './spaces-and-roles.js';

/** Route policies: `caller` authenticates; `changes` needs a role that may change. */
export const ROUTE_POLICIES = {
  /** Anyone, unauthenticated: health, keys, discovery, documents, the revocation list. */
  public: { caller: 'public' },
  /** A client proving itself (read in the handler: the secret may be in the body). */
  client: { caller: 'client' },
  /** A client's private token (never a public one), with its DPoP proof when bound. */
  'private-token': { caller: 'private-token' },
  /**
   * A Shared Signals receiver: a private token for the stream management audience, carrying
   * its scope (SSF 1.0 §8; {@link mayManageStreams}); a Storefront audience's is refused.
   */
  'stream-receiver': { caller: 'private-token' },
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

/** The space first (a cross-space attempt says so whatever the role), then the role for changes. */
export function loginRefusal(
  policy: LoginRoutePolicy,
  user: { readonly spaces: readonly string[]; readonly role: string },
  spaceId: string,
): LoginRefusal | undefined {
  if (!userHasSpace(user, spaceId)) return 'space_not_granted';
  if (ROUTE_POLICIES[policy].changes && !roleMayChange(user.role)) return 'role_forbidden';
  return undefined;
}
