/**
 * Delegation the customer allowed (RFC 8693 §4.4 `may_act`, issue 55): which agent may act for a
 * customer, for how long and with which scopes.
 */
import { isDeepStrictEqual } from 'node:util';
import { missingScopes, type ScopeGrant } from './scopes.js';
import { delegatedScopes, publicScopes, type ScopeCatalog } from '../scope-catalog.js';

/**
 * A public token naming an agent in `may_act` is short-lived, whatever PUBLIC_TOKEN_TTL_SECONDS
 * says: it is handed to a third party.
 */
export const DELEGABLE_TOKEN_TTL_SECONDS = 300;

/**
 * DELEGATION_MAX_DEPTH's default: how many agents an `act` chain may name after the storefront.
 * Each re-delegation hands the customer's authority one party further from the customer's
 * consent, so the chain is short unless the operator says otherwise.
 */
export const DEFAULT_DELEGATION_DEPTH = 3;

/** DELEGATION_BUDGET and its window's defaults: an agent's delegated tokens per customer. */
export const DEFAULT_DELEGATION_BUDGET = { count: 20, windowSeconds: 3600 } as const;

/**
 * The budget window `nowSeconds` falls in (fixed, aligned to the epoch) and when it ends: an
 * agent may get two budgets across a boundary, never more in one window.
 */
export function delegationWindow(nowSeconds: number, windowSeconds: number) {
  const index = Math.floor(nowSeconds / windowSeconds);
  return { index, endsAt: (index + 1) * windowSeconds };
}

/**
 * Whether a chain (the acting agent first, the storefront last) names more agents than
 * `maxDepth`: the storefront that issued the `may_act` token is not a delegation.
 */
export const chainTooDeep = (actors: readonly string[], maxDepth: number): boolean =>
  actors.length - 1 > maxDepth;

/**
 * An agent named in `may_act` must be a client of the token's own space (an active credential
 * there): a customer allows agents of the storefront's space alone.
 */
export function mayBeNamedActor(
  agent: { readonly spaceId: string; readonly status: string } | undefined,
  spaceId: string,
): boolean {
  return agent !== undefined && agent.status === 'active' && agent.spaceId === spaceId;
}

/**
 * Only a public token naming an agent in `may_act` is delegated: any other subject token with an
 * actor is refused as delegation always was, so no plain exchange reaches it (keycloak#52691).
 */
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

/**
 * A public token bought at /v1/issue or by a plain exchange never carries a scope the catalog
 * grants only through delegation: asked for with `may_act`, it is set aside for the agent
 * (`reserved`, the token's `may_act.scope`), which gets it only by exchanging; asked for without,
 * refused. None asked: the defaults, less those.
 */
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

/**
 * A delegated token's RFC 9396 `authorization_details`: the subject token's unchanged, or, asked
 * for, some of its objects, each exactly as held. What a detail allows (a spending cap) is the
 * resource server's to read, so narrower is judged only as fewer objects, never a changed one;
 * anything else is widening, refused (`ok: false`). `dropped`: the held objects not passed on.
 */
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

/**
 * A delegated token's scopes: within the subject token's, the agent credential's and the
 * audience's public ones. None asked: every scope the subject token holds that the agent may
 * carry; asked beyond them: refused. `narrowed`: what the subject token held and this one lacks.
 */
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
