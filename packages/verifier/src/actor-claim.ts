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
