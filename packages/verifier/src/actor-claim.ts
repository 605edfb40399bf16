import { z } from 'zod';

/** RFC 8693 §4.1 `act`: the acting party, the previous actor chain nested in its own `act`. */
export interface ActorClaim {
  readonly sub: string;
  readonly act?: ActorClaim;
}

/** The `act` claim's shape, nested to any depth (the policy bounds how deep one is issued). */
export const actorClaimSchema: z.ZodType<ActorClaim> = z.lazy(() =>
  z.object({ sub: z.string(), act: actorClaimSchema.optional() }),
);

/**
 * RFC 8693 §4.4 `may_act`: the agent allowed to exchange the token; `scope`, the scopes its
 * catalog grants only through delegation, which the token itself does not carry and the agent
 * gets only by exchanging it.
 */
export const mayActClaimSchema = z.object({ sub: z.string(), scope: z.string().optional() });
export type MayActClaim = z.infer<typeof mayActClaimSchema>;

/** The `may_act` claim naming `sub`, with the scopes kept for it if any. */
export const mayActClaim = (sub: string, scope: string | undefined): MayActClaim =>
  scope ? { sub, scope } : { sub };

/** RFC 9396 §2: one authorization detail, its `type` required, the rest the resource server's. */
const authorizationDetail = z.looseObject({ type: z.string().min(1).max(256) });

/** The bound on `authorization_details`, as JSON text: every token and event carrying it pays. */
export const AUTHORIZATION_DETAILS_MAX_LENGTH = 2048;

/**
 * RFC 9396 `authorization_details` (e.g. a spending cap the Storefront API enforces): at most 8
 * objects, each with a `type`, at most {@link AUTHORIZATION_DETAILS_MAX_LENGTH} characters of JSON.
 */
export const authorizationDetailsSchema = z
  .array(authorizationDetail)
  .min(1, 'needs at least one object')
  .max(8)
  .refine((details) => JSON.stringify(details).length <= AUTHORIZATION_DETAILS_MAX_LENGTH, {
    error: `at most ${AUTHORIZATION_DETAILS_MAX_LENGTH} characters of JSON`,
  });
export type AuthorizationDetails = z.infer<typeof authorizationDetailsSchema>;

/** The chain's subjects, outermost (the current actor) first. */
export function actorChain(act: ActorClaim | undefined): string[] {
  const chain: string[] = [];
  for (let at = act; at !== undefined; at = at.act) chain.push(at.sub);
  return chain;
}

/** The `act` claim of a chain of client ids, outermost (the current actor) first. */
export function actorClaimOf(chain: readonly [string, ...string[]]): ActorClaim {
  const [sub, next, ...rest] = chain;
  return next === undefined ? { sub } : { sub, act: actorClaimOf([next, ...rest]) };
}
