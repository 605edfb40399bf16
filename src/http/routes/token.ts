import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import type { ClientProof } from '../../commands/client-authentication/proof.js';
import { isMetadataClientId } from '../../domain/metadata-client/decide.js';
import type { Grant } from '../../commands/token/grants/grant.js';
import { GRANTS, GRANT_TYPES, grantNamed } from '../../commands/token/grants/registry.js';
import { UnsupportedGrantTypeError } from '../../errors/errors.js';
import {
  basicCredentials,
  clientCredentialsShape,
  clientProofOf,
  rawClientCredentials,
  sendsAssertion,
  spaceIdHeader,
  type ClientAuthenticationFields,
} from '../authentication.js';
import { setRateLimitHeaders } from '../error-response.js';
import { dpopProofOf, proofForPresentedToken, type DpopGate } from '../dpop.js';
import { requestMetadata } from '../request-context.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { validate } from '../validate.js';
import { grantResponse } from '../openapi/responses.js';

const field = z.string().min(1, 'must not be empty').max(512);
/** Client authentication in the body (RFC 6749 §2.3.1, RFC 7523 §2.2), for every grant. */
const clientAuthentication = {
  client_id: field.optional(),
  client_secret: field.optional(),
  /** RFC 7523 §2.2: a JWT signed with the client's key (private_key_jwt) or by a trusted issuer. */
  client_assertion_type: field.optional(),
  client_assertion: z.string().min(1, 'must not be empty').max(8192).optional(),
};
/** What any request to the endpoint may carry: the grant type, then each grant's own fields. */
const tokenRequestBody = z.object({
  grant_type: field.describe(`One of: ${GRANT_TYPES.join(', ')}`),
  ...clientAuthentication,
  ...(Object.assign({}, ...GRANTS.map((grant) => grant.schema.partial().shape)) as Record<
    string,
    z.ZodOptional
  >),
});

/**
 * Each grant's fields with a client's id and secret, built once: a zod schema is compiled on its
 * first use, so one made per request costs that every time.
 */
const WITH_SECRET = new Map(
  GRANTS.map((grant) => [grant, z.object({ ...clientCredentialsShape, ...grant.schema.shape })]),
);

/**
 * The client's proof, when the grant requires one or it was sent, and the grant's fields. With a
 * secret, the client's credentials and the grant's own fields are checked as one (every problem
 * named in one answer).
 */
function clientAndFields(
  ctx: RequestContext,
  grant: Grant,
  body: ClientAuthenticationFields & Record<string, unknown>,
): { readonly client: ClientProof | undefined; readonly fields: Record<string, unknown> } {
  const assertion = sendsAssertion(body);
  const secret = basicCredentials(ctx) !== undefined || body.client_secret !== undefined;
  // A grant that takes public clients reads a client_id alone as its field, not a secret missing.
  const named = body.client_id !== undefined && !(grant.publicClients === true && !secret);
  const sent = assertion || secret || named;
  if (assertion || (!sent && grant.clientAuthentication === 'when-sent')) {
    const fields = validate(grant.schema, body, 'body') as Record<string, unknown>;
    return { client: assertion ? clientProofOf(ctx, body) : undefined, fields };
  }
  const checked = validate(
    WITH_SECRET.get(grant)!,
    { ...body, ...rawClientCredentials(ctx, body) },
    'body',
  ) as Record<string, unknown> & { client_id: string; client_secret: string };
  return {
    client: { method: 'secret', clientId: checked.client_id, secret: checked.client_secret },
    fields: checked,
  };
}

/**
 * POST /v1/credential/token: every grant of the registry (`src/commands/token/grants/`), by its
 * `grant_type`. JSON as the spec says, or form-encoded with client authentication in the body or
 * by HTTP Basic.
 */
export function tokenRoutes(commands: CommandContext, dpopGate: DpopGate): readonly Route[] {
  return [
    route('post', '/v1/credential/token', 'client', {
      operationId: 'issuePrivateToken',
      tag: 'Tokens',
      summary: 'The token endpoint: client_credentials and RFC 8693 token exchange',
      description: `JSON or form-encoded; the client authenticates by HTTP Basic, with client_id and client_secret in the body, or, created with keys, with a signed client_assertion (private_key_jwt, RFC 7523), or with a client_assertion of an issuer its space trusts whose rule names the \`client_id\` sent beside it (federated-jwt, RFC 7523 §2.2; a refusal is \`invalid_client\` naming the claim at fault). Grants: ${GRANTS.map((grant) => `\`${grant.grantType}\` (${grant.summary}${grant.space === 'required' ? '; X-Service-Space-ID required' : ''})`).join('; ')}. \`resource\` (RFC 8707) is accepted as a synonym of \`audience\`. Token exchange issues for its subject token's audience: an \`audience\` or \`resource\` naming another is \`invalid_target\`; \`actor_token\` (the agent's private token, delegating a public \`subject_token\` whose \`may_act\` names it: docs/api/agent-builders.md, Delegation) is \`invalid_request\` with any other subject token; a \`scope\` (RFC 6749 §3.3, on every grant) beyond what the catalog, the credential or the subject token allows is \`invalid_scope\`; a DPoP-bound \`subject_token\` needs a proof by its key whose \`ath\` is its hash.`,
      body: { schema: tokenRequestBody, media: ['json', 'form'] },
      responses: [{ status: 200, description: 'The token', schema: grantResponse }],
      errors: [
        'invalid_client',
        'unsupported_grant_type',
        'invalid_grant',
        'invalid_target',
        'invalid_scope',
        'insufficient_scope',
        'rate_limited',
        'invalid_dpop_proof',
        'invalid_authorization_details',
      ],
      async handle(ctx, _auth, { body }) {
        const grant = grantNamed(body.grant_type);
        if (!grant) throw new UnsupportedGrantTypeError(body.grant_type, GRANT_TYPES);
        const request = grant.normalize?.(body) ?? body;
        const { client, fields } = clientAndFields(ctx, grant, request);
        // A client ID metadata document's client is of no space until the request names one.
        const named = grant.space === 'required' || isMetadataClientId(client?.clientId ?? '');
        const spaceId = named ? spaceIdHeader(ctx) : undefined;
        if (client) ctx.state.clientId = client.clientId;
        const issued = await grant.handle(commands, {
          fields,
          client,
          // RFC 9449 §5: a DPoP proof here binds the issued token to its key; with a token the
          // request presents, checked as /v1/issue checks its Authorization token's (ath, key).
          dpop: (presented) =>
            presented
              ? proofForPresentedToken(ctx, dpopGate, presented.token, presented.claims)
              : dpopProofOf(ctx, dpopGate),
          spaceId,
          origin: requestMetadata(ctx),
        });
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Pragma', 'no-cache');
        setRateLimitHeaders(ctx, issued.rateLimit);
        ctx.body = issued.body;
      },
    }),
  ];
}
