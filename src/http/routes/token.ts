import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { issuePrivateToken } from '../../commands/token/issue-private.js';
import { UnsupportedGrantTypeError } from '../../errors/errors.js';
import type { ClientProof } from '../../commands/client-authentication/authenticate.js';
import {
  clientCredentialsShape,
  clientProofOf,
  rawClientCredentials,
  sendsAssertion,
} from '../authentication.js';
import { setRateLimitHeaders } from '../error-response.js';
import { dpopProofOf, type DpopGate } from '../dpop.js';
import { requestMetadata } from '../request-context.js';
import { route, type Route } from '../route.js';
import { clientActor } from '../../domain/actors.js';
import { validate } from '../validate.js';
import { BODY_ERRORS } from '../openapi/operation.js';
import { tokenResponse, type Body } from '../openapi/responses.js';

const field = z.string().min(1, 'must not be empty').max(512);
const tokenRequestBody = z.object({
  grant_type: field,
  client_id: field.optional(),
  client_secret: field.optional(),
  /** private_key_jwt (RFC 7523): a JWT signed with one of the client's keys, instead of a secret. */
  client_assertion_type: field.optional(),
  client_assertion: z.string().min(1, 'must not be empty').max(8192).optional(),
  audience: field.optional(),
  /** RFC 8707 name for the same thing; accepted so generic OAuth clients work. */
  resource: field.optional(),
});

const grantSchema = z.object({ ...clientCredentialsShape, audience: field });
const audienceSchema = z.object({ audience: field });

/**
 * POST /v1/credential/token: the client_credentials grant (RFC 6749 §4.4). JSON as the spec says,
 * or form-encoded with client authentication in the body or by HTTP Basic.
 */
export function tokenRoutes(commands: CommandContext, dpopGate: DpopGate): readonly Route[] {
  return [
    route({
      method: 'post',
      path: '/v1/credential/token',
      operationId: 'issuePrivateToken',
      tag: 'Tokens',
      summary: 'client_credentials grant: a private access token for a server',
      description:
        'RFC 6749 §4.4. JSON or form-encoded; the client authenticates by HTTP Basic, with client_id and client_secret in the body, or, created with keys, with a signed client_assertion (private_key_jwt, RFC 7523). `resource` (RFC 8707) is accepted as a synonym of `audience`.',
      caller: 'client',
      body: { schema: tokenRequestBody, media: ['json', 'form'] },
      responses: [{ status: 200, description: 'The private token', schema: tokenResponse }],
      errors: [
        ...BODY_ERRORS,
        'invalid_client',
        'unsupported_grant_type',
        'invalid_target',
        'rate_limited',
        'invalid_dpop_proof',
      ],
      dialect: 'oauth',
      async handle(ctx) {
        const body = validate(tokenRequestBody, ctx.request.body, 'body');
        if (body.grant_type !== 'client_credentials') {
          throw new UnsupportedGrantTypeError(body.grant_type);
        }
        const audience = body.audience ?? body.resource;
        let proof: ClientProof;
        if (sendsAssertion(body)) {
          validate(audienceSchema, { audience }, 'body');
          proof = clientProofOf(ctx, body);
        } else {
          // Wherever the client's credentials came from (body or Basic), all is checked as one.
          const grant = validate(
            grantSchema,
            { ...rawClientCredentials(ctx, body), audience },
            'body',
          );
          proof = { method: 'secret', clientId: grant.client_id, secret: grant.client_secret };
        }
        ctx.state.clientId = proof.clientId;
        // RFC 9449 §5: a DPoP proof here binds the private token to its key.
        const dpop = await dpopProofOf(ctx, dpopGate);
        const issued = await issuePrivateToken(commands, {
          proof,
          dpop,
          audience: audience!,
          metadata: { actor: clientActor(proof.clientId), ...requestMetadata(ctx) },
        });
        ctx.set('Cache-Control', 'no-store');
        ctx.set('Pragma', 'no-cache');
        setRateLimitHeaders(ctx, issued.rateLimit);
        ctx.body = {
          access_token: issued.token,
          token_type: issued.tokenType,
          expires_in: issued.expiresIn,
        } satisfies Body<typeof tokenResponse>;
      },
    }),
  ];
}
