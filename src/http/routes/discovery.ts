import { CODE_CHALLENGE_METHODS } from '#oauth-authorize/pkce.js';
import { GRANT_TYPES } from '../../commands/token/grants/registry.js';
import {
  ASSERTION_ALGORITHMS,
  FEDERATED_JWT,
} from '../../commands/client-authentication/assertion.js';
import { ACCESS_TOKEN_ALG } from '#verifier/algorithms.js';
import { DPOP_ALGORITHMS } from '../../crypto/dpop.js';
import { allScopes, type ScopeCatalog } from '../../domain/scope-catalog.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { authorizationServerMetadata, type Body } from '../openapi/responses.js';

/** Where the metadata is served for `issuer` (RFC 8414 §3.1 and OIDC Discovery §4). */
function metadataPaths(issuer: string): readonly [string, string] {
  const issuerPath = new URL(issuer.replace(/\/+$/, '')).pathname.replace(/\/+$/, '');
  return [
    `/.well-known/oauth-authorization-server${issuerPath}`,
    `${issuerPath}/.well-known/openid-configuration`,
  ];
}

/**
 * The metadata of `issuer` (the service's own, or a space's: `TOKEN_ISSUER/spaces/{id}`): its keys
 * at `{issuer}/.well-known/jwks.json`, every endpoint at the service's `base` URL, shared by both.
 */
export function discoveryMetadata(
  issuer: string,
  serviceBase: string,
  catalog: ScopeCatalog,
  /** A space's: its /authorize (a code flow's public clients authenticate with `none`). */
  authorizationEndpoint?: string,
): Body<typeof authorizationServerMetadata> {
  const base = serviceBase.replace(/\/+$/, '');
  // federated-jwt: a trusted issuer's assertion (RFC 7523 §2.2; Keycloak's name, no RFC's).
  const clientAuth = [
    'client_secret_basic',
    'client_secret_post',
    'private_key_jwt',
    FEDERATED_JWT,
  ];
  const assertionAlgorithms = [...ASSERTION_ALGORITHMS];
  return {
    issuer,
    token_endpoint: `${base}/v1/credential/token`,
    introspection_endpoint: `${base}/v1/introspect`,
    revocation_endpoint: `${base}/v1/revoke`,
    jwks_uri: `${issuer.replace(/\/+$/, '')}/.well-known/jwks.json`,
    grant_types_supported: [...GRANT_TYPES],
    // RFC 8414 §2: every audience's catalog together; absent when there are no scopes.
    ...(allScopes(catalog).length > 0 ? { scopes_supported: allScopes(catalog) } : {}),
    response_types_supported: authorizationEndpoint ? ['code'] : [],
    token_endpoint_auth_methods_supported: authorizationEndpoint
      ? [...clientAuth, 'none']
      : clientAuth,
    introspection_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_methods_supported: clientAuth,
    // What a private_key_jwt client may sign its assertions with (RFC 8414 §2).
    token_endpoint_auth_signing_alg_values_supported: assertionAlgorithms,
    introspection_endpoint_auth_signing_alg_values_supported: assertionAlgorithms,
    revocation_endpoint_auth_signing_alg_values_supported: assertionAlgorithms,
    // RFC 9449 §5.1: proofs a client may bind its tokens with.
    dpop_signing_alg_values_supported: [...DPOP_ALGORITHMS],
    // The access tokens' signature algorithm (RFC 9068 JWTs).
    access_token_signing_alg_values_supported: [ACCESS_TOKEN_ALG],
    // draft-ietf-oauth-client-id-metadata-document: an https URL may be a client id (private_key_jwt).
    client_id_metadata_document_supported: true,
    ...(authorizationEndpoint && {
      authorization_endpoint: authorizationEndpoint,
      code_challenge_methods_supported: [...CODE_CHALLENGE_METHODS],
      // RFC 9207: every authorization response names its issuer.
      authorization_response_iss_parameter_supported: true,
    }),
  };
}

/**
 * Authorization server metadata (RFC 8414), so a standard OAuth client configures itself from the
 * issuer URL alone. Served at /.well-known/oauth-authorization-server and, because many clients
 * (openid-client among them) ask there first, at /.well-known/openid-configuration too; both
 * documents are the same. Every URL is built from TOKEN_ISSUER, which must be the public base URL
 * of this service. An issuer with a path gets the paths RFC 8414 §3.1 and OIDC Discovery §4 say.
 */
export function discoveryRoutes(issuer: string, catalog: ScopeCatalog): readonly Route[] {
  const metadata = discoveryMetadata(issuer, issuer, catalog);
  const [rfc8414, oidc] = metadataPaths(issuer);
  const common = {
    tag: 'Discovery',
    responses: [{ status: 200, description: 'Metadata', schema: authorizationServerMetadata }],
    handle(ctx: RequestContext) {
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = metadata;
    },
  } as const;
  return [
    route('get', rfc8414, 'public', {
      ...common,
      operationId: 'authorizationServerMetadata',
      summary: 'RFC 8414 authorization server metadata',
    }),
    route('get', oidc, 'public', {
      ...common,
      operationId: 'openidConfiguration',
      summary: 'The same metadata where OpenID Connect clients look for it',
    }),
  ];
}
