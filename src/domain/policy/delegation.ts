/** Delegation the customer allowed (RFC 8693 `may_act`): which agent, how long, what scopes. */
import { isDeepStrictEqual } from 'node:util';
import { missingScopes, type ScopeGrant } from './scopes.js';
import { delegatedScopes, publicScopes, type ScopeCatalog } from '../scope-catalog.js';

/** A public token naming an agent in `may_act` is short-lived: it is handed to a third party. */
export const DELEGABLE_TOKEN_TTL_SECONDS = 300;

/** DELEGATION_MAX_DEPTH's default: each hop moves authority further from consent. */
export const DEFAULT_DELEGATION_DEPTH = 3;

/** DELEGATION_BUDGET and its window's defaults: an agent's delegated tokens per customer. */
export const DEFAULT_DELEGATION_BUDGET = { count: 20, windowSeconds: 3600 } as const;

/** The epoch-aligned budget window of `nowSeconds`: never two budgets in one window. */
export function delegationWindow(nowSeconds: number, windowSeconds: number) {
  const index = Math.floor(nowSeconds / windowSeconds);
  return { index, endsAt: (index + 1) * windowSeconds };
}

/** Whether a chain (agent first) names over `maxDepth` agents; the storefront is not counted. */
export const chainTooDeep = (actors: readonly string[], maxDepth: number): boolean =>
  actors.length - 1 > maxDepth;

/** An agent named in `may_act` must be an active client of the token's own space. */
export function mayBeNamedActor(
  agent: { readonly spaceId: string; readonly status: string } | undefined,
  spaceId: string,
): boolean {
  return agent !== undefined && agent.status === 'active' && agent.spaceId === spaceId;
}

/** Only a public token naming an agent in `may_act` is delegated; others refused (keycloak#52691). */
export function delegable<
  Token extends { readonly token_kind: string; readonly may_act?: { readonly sub: string } },
>(
  subject: Token,
): subject is Token & {
  readonly token_kind: 'public';
  readonly may_act: { readonly sub: string };
} {
  return subject.token_kind === 'public' && subject.may_act !== undefined;
}

/** Delegated-only scopes asked with `may_act` are reserved for the agent; asked without, refused. */
export function reserveDelegatedScopes(
  catalog: ScopeCatalog,
  audience: string,
  grant: { readonly scopes: readonly string[]; readonly asked: boolean; readonly mayAct: boolean },
): ScopeGrant & { readonly reserved?: readonly string[] } {
  const only = delegatedScopes(catalog, audience);
  const reserved = grant.scopes.filter((s) => only.includes(s));
  const scopes = grant.scopes.filter((s) => !only.includes(s));
  if (reserved[0] !== undefined && grant.asked && !grant.mayAct) {
    return { ok: false, scope: reserved[0], reason: 'delegated_only' };
  }
  return { ok: true, scopes, ...(grant.asked && grant.mayAct ? { reserved } : {}) };
}

/** A delegated token's `authorization_details`: held objects unchanged or fewer; else refused. */
export function delegatedDetails<Detail>(
  held: readonly Detail[] | undefined,
  asked: readonly Detail[] | undefined,
): { ok: true; details?: Detail[]; dropped: Detail[] } | { ok: false } {
  if (asked === undefined)
    return { ok: true, ...(held ? { details: [...held] } : {}), dropped: [] };
  const within = held ?? [];
  if (!asked.every((a) => within.some((h) => isDeepStrictEqual(a, h)))) return { ok: false };
  return {
    ok: true,
    details: [...asked],
    dropped: within.filter((h) => !asked.some((a) => isDeepStrictEqual(a, h))),
  };
}

/** The agent may exchange the subject token only when its `may_act` names the agent's client. */
export function mayActFor(mayAct: string | undefined, clientId: string): boolean {
  return mayAct !== undefined && mayAct === clientId;
}

/** A delegated token's scopes: within the subject token's, the agent's and public ones. */
export function delegatedTokenScopes(
  catalog: ScopeCatalog,
  audience: string,
  subject: readonly string[],
  agentAllowed: readonly string[],
  requested: readonly string[] | undefined,
): ScopeGrant & { readonly narrowed?: readonly string[] } {
  const open = publicScopes(catalog, audience);
  const within = subject.filter((s) => agentAllowed.includes(s) && open.includes(s));
  if (requested !== undefined) {
    const [scope] = missingScopes(within, requested);
    if (scope !== undefined) {
      const reason = !subject.includes(scope)
        ? 'not_held'
        : !open.includes(scope)
          ? 'not_public'
          : 'not_allowed';
      return { ok: false, scope, reason };
    }
  }
  const scopes = requested ?? within;
  return { ok: true, scopes, narrowed: missingScopes(scopes, subject) };
}
