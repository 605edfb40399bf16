/** What an issuer's assertion may act as: an active credential of its space, within its scopes. */
import { credentialInSpace } from './spaces-and-roles.js';
import { credentialActive } from './tokens.js';
import { allowedScopes, missingScopes } from './scopes.js';
import type { ScopeCatalog } from '../scope-catalog.js';
import type { TrustedIssuerDefinition } from '../event-data/trusted-issuer.js';

/** The credential a rule acts as, when it is of the issuer's space and active; else undefined. */
export function ruleCredential<C extends { readonly spaceId: string; readonly status: string }>(
  credential: C | undefined,
  issuerSpaceId: string,
): C | undefined {
  const inSpace = credentialInSpace(credential, issuerSpaceId);
  return credentialActive(inSpace) ? inSpace : undefined;
}

/** The scopes a rule's token may carry: the credential's, narrowed to the rule's when it names some. */
export function ruleScopes(
  credentialAllows: readonly string[],
  rule: { readonly scopes?: readonly string[] },
): readonly string[] {
  if (rule.scopes === undefined) return credentialAllows;
  const beyond = new Set(missingScopes(credentialAllows, rule.scopes));
  return rule.scopes.filter((scope) => !beyond.has(scope));
}

/**
 * The credential a token bought under an issuer's rule stands on now: narrowed to the rule as it
 * is, none once the issuer (that very one, not another of its `iss`) or the rule is gone, or the
 * rule acts as another credential.
 */
export function credentialUnderRule<
  C extends { readonly clientId: string; readonly scopes: readonly string[] | null },
>(
  credential: C | undefined,
  issuer: { issuerId: string; removed: boolean; definition: TrustedIssuerDefinition } | undefined,
  bought: { readonly issuer_id: string; readonly rule: string },
  catalog: ScopeCatalog,
): C | undefined {
  const live = issuer && !issuer.removed && issuer.issuerId === bought.issuer_id;
  const rule = live ? issuer.definition.rules.find((each) => each.id === bought.rule) : undefined;
  if (!rule || rule.client_id !== credential?.clientId) return undefined;
  return { ...credential, scopes: ruleScopes(allowedScopes(catalog, credential), rule) };
}

/** The scopes a rule names that its credential does not allow (an admin is told at once). */
export function ruleScopesBeyond(
  credentialAllows: readonly string[],
  rule: { readonly scopes?: readonly string[] },
): readonly string[] {
  return missingScopes(credentialAllows, rule.scopes ?? []);
}

/** Whether an operator issuer's rule (TRUSTED_ISSUERS) naming `ruleSpaceId` serves `spaceId`: only the one it names. */
export const ruleServes = (ruleSpaceId: string, spaceId: string): boolean =>
  ruleSpaceId === spaceId;
