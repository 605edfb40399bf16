import { z } from 'zod';
import type { ReadRouter } from '../../db/read-replica.js';
import { readFrom } from '../read-source.js';
import {
  clientRates,
  clientScopes,
  clientsOfSpace,
  projectorLag,
  spaceTotals,
  topClients,
} from '../../projections/monitoring-queries.js';
import type { Clock } from '../../domain/ports.js';
import type { Limits } from '../../limits/limits.js';
import type { Body } from '../openapi/responses.js';
import {
  clientRates as clientRatesBody,
  clientScopes as clientScopesBody,
  monitoringOverview,
  topClients as topClientsBody,
} from '../openapi/monitoring-responses.js';
import { window } from '../query.js';
import { route, type Route } from '../route.js';
import { answerNoStore } from '../respond.js';
import { clientPath } from './credential-path.js';

const ratesQuery = z.object({
  granularity: z.enum(['minute', 'hour']).default('minute'),
  window: window.default(60 * 60_000),
});

const topQuery = z.object({
  window: window.default(60 * 60_000),
  metric: z
    .enum(['tokens', 'private_tokens', 'public_tokens', 'rejected_authentications'])
    .default('tokens'),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});

const COUNTS = ['private_tokens', 'public_tokens', 'rejected_authentications'] as const;
type Count = (typeof COUNTS)[number];

const overviewQuery = z.object({ window: window.default(60 * 60_000) });
const scopesQuery = z.object({ window: window.default(24 * 60 * 60_000) });

/** A space's issuance and refusal counts over a window, from the projector's rate views. */
export function monitoringRoutes(
  reads: ReadRouter,
  clock: Clock,
  limits: Pick<Limits, 'refusals'>,
): readonly Route[] {
  return [
    route('get', '/v1/monitoring/clients/:client_id/rates', 'space-read', {
      tag: 'Monitoring',
      operationId: 'clientRates',
      summary: "A client's per-minute or per-hour counts over a window",
      params: clientPath,
      query: ratesQuery,
      responses: [{ status: 200, description: 'Rates', schema: clientRatesBody }],
      async handle(ctx, { spaceId }, { query, params: { client_id: clientId } }) {
        const to = new Date(clock.now());
        const from = new Date(to.getTime() - query.window);
        const { granularity } = query;
        const asked = { spaceId, clientId, granularity, from, to };
        const buckets = await clientRates(readFrom(ctx, reads), asked);
        const seconds = query.window / 1000;
        const each = (count: (kind: Count) => number) =>
          Object.fromEntries(COUNTS.map((kind) => [kind, count(kind)])) as Record<Count, number>;
        const totals = each((kind) =>
          buckets.reduce((sum, bucket) => sum + Number(bucket[kind]), 0),
        );
        ctx.body = {
          client_id: clientId,
          granularity,
          from: from.toISOString(),
          to: to.toISOString(),
          totals,
          per_second: each((kind) => totals[kind] / seconds),
          buckets,
        } satisfies Body<typeof clientRatesBody>;
      },
    }),
    route('get', '/v1/monitoring/clients/:client_id/scopes', 'space-read', {
      tag: 'Monitoring',
      operationId: 'clientScopes',
      summary: "A client's issuances per granted scope over a window (hour buckets)",
      params: clientPath,
      query: scopesQuery,
      responses: [{ status: 200, description: 'Per scope', schema: clientScopesBody }],
      async handle(ctx, { spaceId }, { query, params: { client_id: clientId } }) {
        const to = new Date(clock.now());
        const from = new Date(to.getTime() - query.window);
        const scopes = await clientScopes(readFrom(ctx, reads), { spaceId, clientId, from, to });
        ctx.body = {
          client_id: clientId,
          from: from.toISOString(),
          to: to.toISOString(),
          scopes,
        } satisfies Body<typeof clientScopesBody>;
      },
    }),
    route('get', '/v1/monitoring/top-clients', 'space-read', {
      tag: 'Monitoring',
      operationId: 'topClients',
      summary: 'The busiest clients of the space over a window',
      query: topQuery,
      responses: [{ status: 200, description: 'Top clients', schema: topClientsBody }],
      async handle(ctx, { spaceId }, { query }) {
        const from = new Date(clock.now() - query.window);
        const { metric, limit } = query;
        ctx.body = {
          from: from.toISOString(),
          metric,
          clients: await topClients(readFrom(ctx, reads), { spaceId, from, metric, limit }),
        } satisfies Body<typeof topClientsBody>;
      },
    }),
    route('get', '/v1/monitoring/overview', 'space-read', {
      tag: 'Monitoring',
      operationId: 'monitoringOverview',
      summary: "The space's totals over a window, rate-limited requests and projector lag",
      description:
        'Rate-limited requests are not events (nothing changed state): they are counted by the API process that answered, since it started.',
      query: overviewQuery,
      responses: [{ status: 200, description: 'Overview', schema: monitoringOverview }],
      async handle(ctx, { spaceId }, { query }) {
        const to = new Date(clock.now());
        const from = new Date(to.getTime() - query.window);
        const refusals = limits.refusals();
        const db = readFrom(ctx, reads);
        const [totals, ours, projector] = await Promise.all([
          spaceTotals(db, { spaceId, from }),
          clientsOfSpace(db, spaceId, [...refusals.byClient.keys()]),
          projectorLag(db),
        ]);
        answerNoStore(ctx, {
          from: from.toISOString(),
          to: to.toISOString(),
          totals,
          rate_limited: {
            requests: ours.reduce((sum, id) => sum + (refusals.byClient.get(id) ?? 0), 0),
            since: refusals.since.toISOString(),
            scope: 'this API process',
          },
          projector,
        } satisfies Body<typeof monitoringOverview>);
      },
    }),
  ];
}
