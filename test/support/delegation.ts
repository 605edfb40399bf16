import { expect } from 'vitest';
import { AUDIENCE, type TestService } from './test-service.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN = 'urn:ietf:params:oauth:token-type:access_token';

export type Credential = { client_id: string; client_secret: string };

/**
 * The three parties of delegation (issue 55) in one space of a test service: credentials, the
 * storefront's /v1/issue, the agent's exchange.
 */
export function delegationParties(service: () => TestService, space: string) {
  const credential = async (scopes: string[]): Promise<Credential> => {
    const response = await service().post(
      '/v1/credential',
      { name: 'client', description: 'delegation test', scopes },
      {
        authorization: `Bearer ${await service().loginToken([space])}`,
        'x-service-space-id': space,
      },
    );
    expect(response.status).toBe(201);
    return (await response.json()) as Credential;
  };
  const privateToken = async (client: Credential, scopes: string[]): Promise<string> => {
    const response = await service().post('/v1/credential/token', {
      ...client,
      grant_type: 'client_credentials',
      audience: AUDIENCE,
      scope: scopes.join(' '),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  const issue = (token: string, body: Record<string, unknown>) =>
    service().post(
      '/v1/issue',
      { customer_id: 'c-42', segment_id: 'vip', ...body },
      { authorization: `Bearer ${token}`, 'x-service-space-id': space },
    );
  const delegate = (subject: string, actor: string, extra: Record<string, unknown> = {}) =>
    service().post(
      '/v1/credential/token',
      {
        grant_type: TOKEN_EXCHANGE,
        subject_token: subject,
        subject_token_type: ACCESS_TOKEN,
        actor_token: actor,
        actor_token_type: ACCESS_TOKEN,
        ...extra,
      },
      { 'x-service-space-id': space },
    );
  const accessToken = async (response: Response): Promise<string> => {
    const body = (await response.json()) as { access_token: string };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.access_token;
  };
  /** An OAuth refusal (RFC 6749 §5.2) of the token endpoint, its body. */
  const refusal = async (response: Response) => {
    expect(response.status).toBe(400);
    return (await response.json()) as { error: string; error_description: string };
  };
  return {
    credential,
    privateToken,
    issue,
    delegate,
    accessToken,
    refusal,
    TOKEN_EXCHANGE,
    ACCESS_TOKEN,
  };
}
