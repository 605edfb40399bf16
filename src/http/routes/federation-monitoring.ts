import { z } from 'zod';
import type { ReadRouter } from '../../db/read-replica.js';
import type { Clock } from '../../domain/ports.js';
import {
  isOperatorIssuerId,
  operatorIssuersOf,
  type OperatorIssuer,
} from '../../domain/trusted-issuer/operator-issuers.js';
import { agentUse, issuerRuleUse } from '../../projections/federation-queries.js';
import { listTrustedIssuers } from '../../projections/trusted-issuers.js';
import { timestamp, type Body } from '../openapi/responses.js';
import { window } from '../query.js';
import { readFrom } from '../read-source.js';
import { route, type Route } from '../route.js';

// At most a week of the log, at most 100 rows: a bounded read of the space's partial indexes.
const useQuery = z.object({
  window: window.default(24 * 60 * 60_000).pipe(z.number().max(7 * 86_400_000, 'at most 7d')),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
const use = { issuances: z.number().int(), last_used: timestamp.nullable() };
const issuerUseBody = z.object({
  from: timestamp,
  issuers: z.array(
    z.object({
      issuer_id: z.string(),
      iss: z.string(),
      declared_by: z.enum(['space', 'operator']),
      /** False: no longer trusted, yet it bought tokens within the window. */
      trusted: z.boolean(),
      rules: z.array(z.object({ rule: z.string(), ...use })),
    }),
  ),
});
const agentsBody = z.object({
  from: timestamp,
  agents: z.array(z.object({ client_id: z.string(), name: z.string().nullable(), ...use })),
});
type IssuerUse = Body<typeof issuerUseBody>['issuers'][number];

/**
 * GET /v1/monitoring/trusted-issuers: each trusted issuer's rules and the tokens each bought;
 * GET /v1/monitoring/agents: the clients acting in delegated tokens. Both read the window's
 * issuances, as the dashboard shows them.
 */
export function federationMonitoringRoutes(
  reads: ReadRouter,
  clock: Clock,
  operator: readonly OperatorIssuer[],
): readonly Route[] {
  const asked = (
    ctx: Parameters<Route['handle']>[0],
    spaceId: string,
    query: z.infer<typeof useQuery>,
  ) => {
    const from = new Date(clock.now() - query.window);
    ctx.set('Cache-Control', 'no-store');
    return { db: readFrom(ctx, reads), on: { spaceId, from, limit: query.limit } };
  };
  return [
    route('get', '/v1/monitoring/trusted-issuers', 'space-read', {
      tag: 'Monitoring',
      operationId: 'trustedIssuerUse',
      summary: "The space's trusted issuers and the tokens each rule bought over a window",
      query: useQuery,
      responses: [{ status: 200, description: 'Issuers and use', schema: issuerUseBody }],
      async handle(ctx, { spaceId }, { query }) {
        const { db, on } = asked(ctx, spaceId, query);
        const [own, used] = await Promise.all([
          listTrustedIssuers(db, spaceId),
          issuerRuleUse(db, on),
        ]);
        const declared = new Map(
          [...own, ...operatorIssuersOf(operator, spaceId)].map((state) => [
            state.issuerId,
            state.definition,
          ]),
        );
        const ids = new Set([...declared.keys(), ...used.map((row) => row.issuer_id)]);
        const issuers = [...ids].map((issuerId): IssuerUse => {
          const rows = used.filter((row) => row.issuer_id === issuerId);
          const definition = declared.get(issuerId);
          // A rule since removed still shows what it bought within the window.
          const rules = new Set([
            ...(definition?.rules.map((rule) => rule.id) ?? []),
            ...rows.map((row) => row.rule),
          ]);
          return {
            issuer_id: issuerId,
            iss: definition?.iss ?? rows[0]!.iss,
            declared_by: isOperatorIssuerId(issuerId) ? 'operator' : 'space',
            trusted: definition !== undefined,
            rules: [...rules].map((rule) => {
              const row = rows.find((one) => one.rule === rule);
              return { rule, issuances: row?.issuances ?? 0, last_used: row?.last_used ?? null };
            }),
          };
        });
        ctx.body = { from: on.from.toISOString(), issuers } satisfies Body<typeof issuerUseBody>;
      },
    }),
    route('get', '/v1/monitoring/agents', 'space-read', {
      tag: 'Monitoring',
      operationId: 'agentUse',
      summary: 'The clients acting for customers in delegated tokens over a window',
      query: useQuery,
      responses: [{ status: 200, description: 'Agents and use', schema: agentsBody }],
      async handle(ctx, { spaceId }, { query }) {
        const { db, on } = asked(ctx, spaceId, query);
        ctx.body = {
          from: on.from.toISOString(),
          agents: await agentUse(db, on),
        } satisfies Body<typeof agentsBody>;
      },
    }),
  ];
}
