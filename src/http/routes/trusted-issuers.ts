import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import {
  addTrustedIssuer,
  changeTrustedIssuer,
  removeTrustedIssuer,
  type IssuerAdminContext,
} from '../../commands/trusted-issuer/admin.js';
import {
  metadataClientDomainAllowedSchema as allowedDomain,
  metadataClientDomainSchema,
  trustedIssuerDefinitionSchema,
} from '../../domain/event-data/trusted-issuer.js';
import {
  allowMetadataClientDomain,
  removeMetadataClientDomain,
} from '../../commands/trusted-issuer/metadata-domains.js';
import type { MetadataClientDomain } from '../../domain/metadata-client/decide.js';
import type { TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';
import { operatorIssuersOf } from '../../domain/trusted-issuer/operator-issuers.js';
import { listTrustedIssuers, metadataClientDomains } from '../../projections/trusted-issuers.js';
import type { Body } from '../openapi/responses.js';
import { answerNoStore, spaceChange } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { validate } from '../validate.js';

const issuerPath = z.object({ issuer_id: z.string().min(1).max(100) });

/** One trusted issuer as the API shows it: its id and the definition its admins gave. */
const trustedIssuer = z
  .object({ issuer_id: z.string(), declared_by: z.literal('operator').optional() })
  .and(trustedIssuerDefinitionSchema);
const trustedIssuerList = z.object({ items: z.array(trustedIssuer) });
const domainList = z.object({ items: z.array(allowedDomain) });
const domainPath = z.object({ domain: metadataClientDomainSchema });
const shownDomain = (state: MetadataClientDomain): Body<typeof allowedDomain> => ({
  domain: state.domain,
  ...(state.scopes ? { scopes: [...state.scopes] } : {}),
  budget_per_minute: state.budgetPerMinute,
});

const shown = (state: TrustedIssuerState): Body<typeof trustedIssuer> => ({
  issuer_id: state.issuerId,
  ...state.definition,
});

/**
 * A space's trusted issuers, for its dashboard users: whose tokens the jwt-bearer grant takes in
 * place of a secret, and which credential each rule maps them to. Every change is an event.
 */
export function trustedIssuerRoutes(
  admin: IssuerAdminContext,
  db: Kysely<Database>,
): readonly Route[] {
  const answer = (ctx: RequestContext, state: TrustedIssuerState, status?: number) =>
    answerNoStore(ctx, shown(state), status);
  const named = (ctx: RequestContext) => validate(issuerPath, ctx.params, 'path').issuer_id;
  return [
    route('get', '/v1/trusted-issuers', 'space-read', {
      tag: 'Trusted issuers',
      operationId: 'listTrustedIssuers',
      summary: "The space's trusted issuers: keys, audience and rules",
      responses: [{ status: 200, description: 'The issuers', schema: trustedIssuerList }],
      async handle(ctx, { spaceId }) {
        const items = [
          ...(await listTrustedIssuers(db, spaceId)).map(shown),
          ...operatorIssuersOf(admin.operator ?? [], spaceId).map((state) => ({
            ...shown(state),
            declared_by: 'operator' as const,
          })),
        ];
        answerNoStore(ctx, { items } satisfies Body<typeof trustedIssuerList>);
      },
    }),
    route('post', '/v1/trusted-issuers', 'space-change', {
      tag: 'Trusted issuers',
      operationId: 'addTrustedIssuer',
      summary:
        "Trust an issuer's tokens (Kubernetes, SPIFFE, CI) at the jwt-bearer grant, its claims mapped to credentials",
      body: { schema: trustedIssuerDefinitionSchema, media: ['json'] },
      responses: [{ status: 201, description: 'Trusted', schema: trustedIssuer }],
      errors: ['conflict'],
      async handle(ctx, who, { body: definition }) {
        answer(ctx, await addTrustedIssuer(admin, { ...spaceChange(ctx, who), definition }), 201);
      },
    }),
    route('patch', '/v1/trusted-issuers/:issuer_id', 'space-change', {
      tag: 'Trusted issuers',
      operationId: 'changeTrustedIssuer',
      summary: "Replace a trusted issuer's definition (keys, audience, rules)",
      params: issuerPath,
      body: { schema: trustedIssuerDefinitionSchema, media: ['json'] },
      responses: [{ status: 200, description: 'The issuer', schema: trustedIssuer }],
      errors: ['not_found', 'conflict'],
      async handle(ctx, who, { body: definition }) {
        answer(
          ctx,
          await changeTrustedIssuer(admin, {
            ...spaceChange(ctx, who),
            issuerId: named(ctx),
            definition,
          }),
        );
      },
    }),
    route('delete', '/v1/trusted-issuers/:issuer_id', 'space-change', {
      tag: 'Trusted issuers',
      operationId: 'removeTrustedIssuer',
      summary: 'Stop trusting an issuer (a DELETE again answers the same)',
      params: issuerPath,
      responses: [{ status: 204, description: 'Removed (or removed before)' }],
      errors: ['not_found', 'conflict'],
      async handle(ctx, who) {
        await removeTrustedIssuer(admin, { ...spaceChange(ctx, who), issuerId: named(ctx) });
        ctx.status = 204;
      },
    }),
    ...metadataClientDomainRoutes(admin, db),
  ];
}

/** The domains whose client ID metadata documents a space takes as clients, with their scopes. */
function metadataClientDomainRoutes(
  admin: IssuerAdminContext,
  db: Kysely<Database>,
): readonly Route[] {
  const path = '/v1/metadata-client-domains';
  return [
    route('get', path, 'space-read', {
      tag: 'Metadata clients',
      operationId: 'listMetadataClientDomains',
      summary: 'The domains whose client ID metadata documents the space takes as clients',
      responses: [{ status: 200, description: 'The domains', schema: domainList }],
      async handle(ctx, { spaceId }) {
        const items = (await metadataClientDomains(db, spaceId)).map(shownDomain);
        answerNoStore(ctx, { items } satisfies Body<typeof domainList>);
      },
    }),
    route('post', path, 'space-change', {
      tag: 'Metadata clients',
      operationId: 'allowMetadataClientDomain',
      summary: "Take a domain's client ID metadata documents as clients, with at most these scopes",
      body: { schema: allowedDomain, media: ['json'] },
      responses: [{ status: 201, description: 'Allowed', schema: allowedDomain }],
      errors: ['conflict'],
      async handle(ctx, who, { body }) {
        const { budget_per_minute: budgetPerMinute, ...allowed } = body;
        const change = { ...spaceChange(ctx, who), ...allowed, budgetPerMinute };
        const state = await allowMetadataClientDomain(admin, change);
        answerNoStore(ctx, shownDomain(state), 201);
      },
    }),
    route('delete', `${path}/:domain`, 'space-change', {
      tag: 'Metadata clients',
      operationId: 'removeMetadataClientDomain',
      summary: "Stop taking a domain's documents as clients (a DELETE again answers the same)",
      params: domainPath,
      responses: [{ status: 204, description: 'Removed (or removed before)' }],
      errors: ['not_found'],
      async handle(ctx, who, { params: { domain } }) {
        await removeMetadataClientDomain(admin, { ...spaceChange(ctx, who), domain });
        ctx.status = 204;
      },
    }),
  ];
}
