/** The kinds of access token this service issues. */
export type TokenKind = 'private' | 'public';

/**
 * Which events are token issuances, and of which kind: the one list (grants, stored form, evolve,
 * the audit trail read it). It imports nothing, so `../events.ts` checks its keys without a cycle.
 */
export const TOKEN_ISSUANCES = {
  'private-token-issued': 'private',
  'public-token-issued': 'public',
} as const satisfies Readonly<Record<string, TokenKind>>;

/** An event type that issues a token. */
export type IssuanceEvent = keyof typeof TOKEN_ISSUANCES;

/** Whether `type` issues a token. */
export function isIssuance(type: string): type is IssuanceEvent {
  return Object.hasOwn(TOKEN_ISSUANCES, type);
}

/** The kind of token `type` issues; null for every other event. */
export function tokenKindOf(type: string): TokenKind | null {
  return isIssuance(type) ? TOKEN_ISSUANCES[type] : null;
}

/** The issuance events of one kind. */
export function issuancesOf(kind: TokenKind): readonly IssuanceEvent[] {
  return (Object.keys(TOKEN_ISSUANCES) as IssuanceEvent[]).filter(
    (type) => TOKEN_ISSUANCES[type] === kind,
  );
}
