import { z } from 'zod';
import { actorChain, type ActorClaim } from './actor-claim.js';
import { VerifyError, type TokenScheme } from './verify-error.js';

/**
 * Whether a route takes tokens an agent holds for a customer (issue 55): `required`, only those
 * (an agents' endpoint); `refused`, never (what a customer must do in person); `allowed`, both.
 */
export type DelegationRule = 'required' | 'refused' | 'allowed';

/** A route's delegation requirements, as {@link RouteRequirements} declares them. */
export interface DelegationRequirements {
  /** Default `allowed`. */
  readonly delegation?: DelegationRule;
  /**
   * The agents' client ids this route serves: a delegated token passes only if every agent in
   * its `act` chain is one of them. Absent: any agent the customer allowed.
   */
  readonly agents?: readonly string[];
}

const requirementsSchema = z.object({
  delegation: z.enum(['required', 'refused', 'allowed']).optional(),
  agents: z.array(z.string().min(1)).optional(),
});

// Routes pass the same options on every request: each is checked once.
const checked = new WeakSet<DelegationRequirements>();

/**
 * Checks a route's declaration once, where it is made: an unknown rule (a typo would otherwise
 * allow delegation), or agents listed on a route that refuses them, throws a TypeError.
 */
export function declaredDelegation(requirements: DelegationRequirements): void {
  if (checked.has(requirements)) return;
  const parsed = requirementsSchema.safeParse({
    delegation: requirements.delegation,
    agents: requirements.agents,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`${issue?.path.join('.')}: ${issue?.message}`);
  }
  if (requirements.delegation === 'refused' && requirements.agents !== undefined) {
    throw new TypeError('agents: a route that refuses delegation serves no agent');
  }
  checked.add(requirements);
}

/**
 * The `act` chain as a list, outermost first: the agent presenting the token, the agents it acts
 * through, and last the client that bought the customer's token (the storefront). A public token
 * bought directly names that client alone; a private token has no chain.
 */
export function actorsOf(token: { readonly act?: ActorClaim }): readonly string[] {
  return actorChain(token.act);
}

/** The agents acting in a chain: every actor but the client that bought the token. */
export function agentsIn(actors: readonly string[]): readonly string[] {
  return actors.slice(0, -1);
}

/**
 * Holds a verified token to the route's delegation rule: 403 with `delegation_required` or
 * `delegation_refused` (in the token's scheme, like `insufficient_scope`), the reason in the
 * challenge's `error_description`.
 */
export function requireDelegation(
  actors: readonly string[],
  requirements: DelegationRequirements,
  scheme: TokenScheme,
): void {
  const rule = requirements.delegation ?? 'allowed';
  const agents = agentsIn(actors);
  if (rule === 'refused' && agents.length > 0) {
    throw new VerifyError(
      'delegation_refused',
      `this route does not take a token an agent holds for a customer (agent ${agents[0]})`,
      403,
      { scheme },
    );
  }
  if (rule === 'required' && agents.length === 0) {
    throw new VerifyError(
      'delegation_required',
      'this route takes only a token an agent holds for a customer (RFC 8693 act)',
      403,
      { scheme },
    );
  }
  const allowed = requirements.agents;
  const stranger = allowed === undefined ? undefined : agents.find((a) => !allowed.includes(a));
  if (stranger !== undefined) {
    throw new VerifyError(
      'delegation_refused',
      `the agent ${stranger} is not one this route serves`,
      403,
      { scheme },
    );
  }
}
