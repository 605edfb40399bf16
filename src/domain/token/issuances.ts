/** The kinds of access token this service issues. */
export type TokenKind = 'private' | 'public';

/**
 * Which events are token issuances, and of which kind: the one list. The grant registry
 * (`src/commands/token/grants/`) names one of these per grant; the stored form, token `evolve`,
 * the audit trail's token kind and the views recomputed for the chaos run read it here, and
 * `test/unit/grant-registry.test.ts` holds the `audit_log` view's SQL to it. That every key is an
 * event type is checked in `../events.ts` (this file imports nothing, so no cycle).
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
