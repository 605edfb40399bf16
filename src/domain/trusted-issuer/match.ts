import type { IssuerRule, TrustedIssuerDefinition } from '../event-data/trusted-issuer.js';

/** A claim by `/`-separated path; a name holding `/` is unreachable. */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = claims;
  for (const part of path.split('/')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** A claim's value against a rule's: equal, or starting with what precedes a final `*`. */
function valueMatches(actual: unknown, wanted: string): boolean {
  if (typeof actual !== 'string') return false;
  return wanted.endsWith('*') ? actual.startsWith(wanted.slice(0, -1)) : actual === wanted;
}

/** The first rule whose every claim matches the assertion's claims, in the order given. */
export function matchingRule(
  definition: TrustedIssuerDefinition,
  claims: Readonly<Record<string, unknown>>,
): IssuerRule | undefined {
  return definition.rules.find((rule) =>
    Object.entries(rule.claims).every(([path, wanted]) =>
      valueMatches(claimAt(claims, path), wanted),
    ),
  );
}
