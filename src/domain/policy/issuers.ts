/** What an issuer's assertion may act as: an active credential of its space, within its scopes. */
import { credentialInSpace } from './spaces-and-roles.js';
import { credentialActive } from './tokens.js';
import { missingScopes } from './scopes.js';

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
