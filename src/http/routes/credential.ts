import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { createCredential } from '../../commands/credential/create.js';
import {
  revokeCredential,
  updateCredential,
  type CredentialCommand,
} from '../../commands/credential/change.js';
import type { Database } from '../../db/schema.js';
import { NotFoundError } from '../../errors/errors.js';
import { clientJwksSchema, redirectUrisSchema, scopeListSchema } from '../../domain/events.js';
import { isUsablePublicJwk } from '../../crypto/client-keys.js';
import {
  getCredential,
  listCredentials,
  type CredentialRecord,
} from '../../projections/credential-queries.js';
import { allowedScopes } from '../../domain/policy.js';
import { jsonCursor } from '../query.js';
import { answerNoStore, spaceChange } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { clientPath, common, namedCredential } from './credential-path.js';
import { rotateSecretRoute } from './credential-secret.js';
import { displayText } from '../validate.js';
import {
  createdCredential,
  credentialPage,
  credentialRecord,
  type Body,
} from '../openapi/responses.js';

const listQuery = z.object({
  status: z.enum(['active', 'revoked']).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional(),
});
const pageCursor = jsonCursor(
  z.object({ createdAt: z.iso.datetime({ offset: true }), clientId: z.string().max(200) }),
);
/** A client's keys as the events hold them, each one a public key we can use. */
const usableJwks = clientJwksSchema.refine((jwks) => jwks.keys.every(isUsablePublicJwk), {
  message: 'every key must be a usable public JWK (EC P-256/P-384, Ed25519 or RSA)',
});
const revokeBody = z.object({
  reason: displayText(500).optional(),
  /** The credential leaked: receivers hear RISC `credential-compromise` besides the revocation. */
  compromised: z.boolean().optional(),
});

/**
 * The credentials of a space, for its dashboard users (login token + X-Service-Space-ID):
 * create (POST /v1/credential), list, read, rotate the secret, revoke. Every change is an event.
 */
export function credentialRoutes(commands: CommandContext, db: Kysely<Database>): readonly Route[] {
  // Its shape only: that it stays under the space's ceiling is the credential decider's rule.
  const rateLimit = z.number().int().min(1).max(1_000_000_000);
  const createCredentialBody = z.object({
    name: displayText(200),
    description: displayText(2000),
    rate_limit_per_minute: rateLimit.nullable().optional(),
    /** Public keys instead of a secret: the client then authenticates with private_key_jwt. */
    jwks: usableJwks.optional(),
    /** Every public token this client issues must be DPoP-bound (RFC 9449). */
    require_dpop: z.boolean().optional(),
    /** The scopes its tokens may carry (catalog names); absent: the catalog's defaults. */
    scopes: scopeListSchema.optional(),
    /** Where /authorize may send its browser back: the code flow, authenticating at redemption. */
    redirect_uris: redirectUrisSchema.optional(),
  });
  const updateBody = z
    .object({
      rate_limit_per_minute: rateLimit.nullable().optional(),
      /** A secretless client's new public keys (the whole set). */
      jwks: usableJwks.optional(),
      /** The scopes its tokens may carry, whole; one taken away is refused on live tokens too. */
      scopes: scopeListSchema.optional(),
      /** Its redirect URIs, whole; `[]`: no longer a code-flow client. */
      redirect_uris: z.union([redirectUrisSchema, z.array(z.string()).max(0)]).optional(),
    })
    .refine(
      (body) =>
        body.rate_limit_per_minute !== undefined ||
        body.jwks !== undefined ||
        body.scopes !== undefined ||
        body.redirect_uris !== undefined,
      { message: 'give rate_limit_per_minute, jwks, scopes, redirect_uris, or several' },
    );
  /** A credential as shown: the scopes it allows now, also when recorded before scopes. */
  const shown = (record: CredentialRecord) => ({
    ...record,
    scopes: [...allowedScopes(commands.scopeCatalog, record)],
  });
  const found = async (spaceId: string, clientId: string) => {
    const record = await getCredential(db, spaceId, clientId);
    if (!record) throw new NotFoundError(`no credential "${clientId}" in this space`);
    return shown(record);
  };
  /** Runs a change to the credential in the path, then answers with the credential as it is. */
  const changeThenShow = async (
    ctx: RequestContext,
    who: { readonly spaceId: string; readonly actor: string },
    change: (command: CredentialCommand) => Promise<unknown>,
  ) => {
    const clientId = namedCredential(ctx);
    await change({ ...spaceChange(ctx, who), clientId, actor: who.actor });
    answerNoStore(ctx, await found(who.spaceId, clientId));
  };
  return [
    route('post', '/v1/credential', 'space-change', {
      ...common,
      operationId: 'createCredential',
      summary: 'Create client credentials for the space (the secret is shown this once)',
      body: { schema: createCredentialBody, media: ['json'] },
      responses: [{ status: 201, description: 'Created', schema: createdCredential }],
      errors: ['invalid_scope'],
      async handle(ctx, { user, ...who }, { body }) {
        const created = await createCredential(commands, {
          ...spaceChange(ctx, who),
          name: body.name,
          description: body.description,
          userSubject: user.subject,
          loginIssuer: user.issuer,
          rateLimitPerMinute: body.rate_limit_per_minute ?? null,
          jwks: body.jwks,
          requireDpop: body.require_dpop,
          scopes: body.scopes,
          redirectUris: body.redirect_uris,
        });
        ctx.state.clientId = created.clientId;
        const shownCreated = {
          client_id: created.clientId,
          ...(created.clientSecret ? { client_secret: created.clientSecret } : {}),
          token_endpoint_auth_method: created.clientSecret
            ? 'client_secret_basic'
            : 'private_key_jwt',
          name: created.name,
          description: created.description,
          space_id: created.spaceId,
          status: 'active',
          created_at: created.createdAt.toISOString(),
          last_updated: created.createdAt.toISOString(),
          last_used_at: null,
          rate_limit_per_minute: body.rate_limit_per_minute ?? null,
          scopes: [...created.scopes],
          ...(body.redirect_uris ? { redirect_uris: body.redirect_uris } : {}),
          ttl: null,
        } satisfies Body<typeof createdCredential>;
        answerNoStore(ctx, shownCreated, 201);
      },
    }),
    route('get', '/v1/credentials', 'space-read', {
      ...common,
      operationId: 'listCredentials',
      summary: "The space's credentials, newest first, in cursor pages",
      query: listQuery,
      responses: [{ status: 200, description: 'A page', schema: credentialPage }],
      async handle(ctx, { spaceId }, { query }) {
        const page = await listCredentials(db, {
          spaceId,
          status: query.status,
          after: query.cursor === undefined ? undefined : pageCursor.decode(query.cursor),
          limit: query.limit,
        });
        answerNoStore(ctx, {
          items: page.items.map(shown),
          next_cursor: page.next ? pageCursor.encode(page.next) : null,
        } satisfies Body<typeof credentialPage>);
      },
    }),
    route('get', '/v1/credential/:client_id', 'space-read', {
      ...common,
      operationId: 'getCredential',
      summary: 'One credential',
      params: clientPath,
      responses: [{ status: 200, description: 'The credential', schema: credentialRecord }],
      errors: ['not_found', 'method_not_allowed'],
      async handle(ctx, { spaceId }, { params: { client_id: clientId } }) {
        answerNoStore(ctx, await found(spaceId, clientId));
      },
    }),
    route('patch', '/v1/credential/:client_id', 'space-change', {
      ...common,
      operationId: 'updateCredential',
      summary:
        "Change a credential's rate limit (null: the service default), allowed scopes, redirect URIs, or a secretless client's keys",
      params: clientPath,
      body: { schema: updateBody, media: ['json'] },
      responses: [{ status: 200, description: 'The credential', schema: credentialRecord }],
      errors: ['invalid_scope', 'not_found', 'method_not_allowed', 'conflict'],
      handle: (ctx, who, input) =>
        changeThenShow(ctx, who, async (command) => {
          const { body } = input;
          await updateCredential(commands, {
            ...command,
            ...(body.jwks ? { jwks: body.jwks } : {}),
            ...(body.scopes ? { scopes: body.scopes } : {}),
            ...(body.redirect_uris ? { redirectUris: body.redirect_uris } : {}),
            ...(body.rate_limit_per_minute !== undefined
              ? { rateLimitPerMinute: body.rate_limit_per_minute }
              : {}),
          });
        }),
    }),
    route('delete', '/v1/credential/:client_id', 'space-change', {
      ...common,
      operationId: 'revokeCredential',
      summary: 'Revoke a credential and every token it was issued (idempotent)',
      params: clientPath,
      body: { schema: revokeBody, media: ['json'], optional: true },
      responses: [{ status: 200, description: 'The revoked credential', schema: credentialRecord }],
      errors: ['not_found', 'method_not_allowed', 'conflict'],
      handle: (ctx, who, input) =>
        changeThenShow(ctx, who, (command) =>
          revokeCredential(commands, {
            ...command,
            reason: input.body.reason ?? null,
            compromised: input.body.compromised === true,
          }),
        ),
    }),
    rotateSecretRoute(commands),
  ];
}
