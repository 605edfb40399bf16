import { z } from 'zod';
import { issuerRuleSchema, trustedIssuerDefinitionSchema } from '../event-data/trusted-issuer.js';
import type { TrustedIssuerState } from './decide.js';
import { ruleServes } from '../policy/issuers.js';

/** The id prefix of an operator's issuer: a space's issuers are `tis_…`, never this. */
const PREFIX = 'operator-';

/** TRUSTED_ISSUERS: deployment-wide issuers; each rule names its space. */
export const operatorIssuersSchema = z.array(
  z
    .object({
      id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'lowercase letters, digits, -'),
      rules: z.array(
        issuerRuleSchema.extend({
          space_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/, 'a space id'),
        }),
      ),
    })
    .and(trustedIssuerDefinitionSchema),
);
export type OperatorIssuer = z.infer<typeof operatorIssuersSchema>[number];

/** Whether an issuer id is an operator's, which no space's admin may change or remove. */
export const isOperatorIssuerId = (issuerId: string) => issuerId.startsWith(PREFIX);

/** An operator issuer as a space sees it: only the rules naming that space; none, no issuer. */
function inSpace(issuer: OperatorIssuer, spaceId: string): TrustedIssuerState | undefined {
  const { id, rules, ...definition } = issuer;
  const own = rules.flatMap(({ space_id, ...rule }) =>
    ruleServes(space_id, spaceId) ? [rule] : [],
  );
  if (own.length === 0) return undefined;
  return {
    issuerId: `${PREFIX}${id}`,
    spaceId,
    definition: { ...definition, rules: own },
    removed: false,
  };
}

/** The operator's issuers serving a space, as that space sees them. */
export const operatorIssuersOf = (issuers: readonly OperatorIssuer[], spaceId: string) =>
  issuers.flatMap((issuer) => inSpace(issuer, spaceId) ?? []);

/** The operator's issuer of an `iss` serving a space, if any. */
export const operatorIssuerOf = (
  issuers: readonly OperatorIssuer[],
  spaceId: string,
  iss: string,
) => operatorIssuersOf(issuers, spaceId).find((issuer) => issuer.definition.iss === iss);

/** Why operator issuers are refused (`TRUSTED_ISSUERS[<i>]: <why>`); one issuer per `iss`. */
export function operatorIssuerRefusals(
  issuers: readonly OperatorIssuer[],
  checks: {
    readonly ours: readonly string[];
    readonly lifetimeCeiling: number;
    readonly jwksRefusal: (url: string) => string | undefined;
  },
): string[] {
  const at = (index: number, why: string) => `TRUSTED_ISSUERS[${index}]: ${why}`;
  return issuers.flatMap((issuer, index) => {
    const faults: string[] = [];
    if (!checks.ours.includes(issuer.audience))
      faults.push(`audience must be one of ${checks.ours.join(', ')}`);
    if ((issuer.max_lifetime_seconds ?? 0) > checks.lifetimeCeiling)
      faults.push(`max_lifetime_seconds at most ${checks.lifetimeCeiling}`);
    const jwks = issuer.jwks_uri && checks.jwksRefusal(issuer.jwks_uri);
    if (jwks) faults.push(`jwks_uri: ${jwks}`);
    const earlier = issuers.slice(0, index);
    if (earlier.some((other) => other.id === issuer.id)) faults.push(`id ${issuer.id} repeated`);
    if (earlier.some((other) => other.iss === issuer.iss))
      faults.push(`iss ${issuer.iss} repeated`);
    return faults.map((why) => at(index, why));
  });
}
