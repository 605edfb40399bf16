/**
 * An agent acting for customers (issue 55), knowing only the resource it serves and its own
 * credential: it finds the token service through the resource's RFC 9728 metadata (the MCP SDK's
 * discovery), then exchanges a customer's token with openid-client's genericGrantRequest, its
 * own private token as `actor_token` (RFC 8693), and calls the resource with the result.
 * Env: RESOURCE, SPACE, AUDIENCE, CLIENT_ID, CLIENT_SECRET, SCOPE.
 */
import { discoverOAuthProtectedResourceMetadata } from '@modelcontextprotocol/sdk/client/auth.js';
import { decodeJwt } from 'jose';
import * as oauth from 'openid-client';
import { serveJson } from './json-server.js';

const env = (name: string) => process.env[name] ?? '';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';
const resource = env('RESOURCE');

const metadata = await discoverOAuthProtectedResourceMetadata(resource);
const issuer = metadata.authorization_servers?.[0];
if (!issuer) throw new Error(`no authorization server in ${JSON.stringify(metadata)}`);
const config = await oauth.discovery(
  new URL(issuer),
  env('CLIENT_ID'),
  undefined,
  oauth.ClientSecretBasic(env('CLIENT_SECRET')),
  {
    execute: [oauth.allowInsecureRequests],
    // The space travels beside every token request, as a deployment's client sends it.
    [oauth.customFetch]: (url, options) =>
      fetch(url, {
        ...(options as RequestInit),
        headers: { ...options.headers, 'x-service-space-id': env('SPACE') },
      }),
  },
);
const own = await oauth.clientCredentialsGrant(config, {
  audience: env('AUDIENCE'),
  scope: env('SCOPE'),
});

/** The token service's refusal as openid-client reports it. */
function refusalOf(error: unknown) {
  if (error instanceof oauth.ResponseBodyError) {
    const { status, error: code, error_description } = error;
    return { status, error: code, error_description };
  }
  throw error;
}

serveJson({
  '/discovered': () => Promise.resolve({ metadata, issuer }),
  /** `{ subject_token, path, scope? }`: the exchange's outcome, then the resource's answer. */
  '/act': async (body) => {
    let delegated;
    try {
      delegated = await oauth.genericGrantRequest(config, TOKEN_EXCHANGE, {
        subject_token: String(body.subject_token),
        subject_token_type: ACCESS_TOKEN,
        actor_token: own.access_token,
        actor_token_type: ACCESS_TOKEN,
        ...(typeof body.scope === 'string' ? { scope: body.scope } : {}),
      });
    } catch (error) {
      return { exchange: refusalOf(error) };
    }
    const response = await fetch(new URL(String(body.path), resource), {
      method: 'POST',
      headers: { authorization: `Bearer ${delegated.access_token}` },
    });
    return {
      exchange: { status: 200 },
      claims: decodeJwt(delegated.access_token),
      resource: {
        status: response.status,
        www_authenticate: response.headers.get('www-authenticate'),
        body: await response.json(),
      },
    };
  },
});
