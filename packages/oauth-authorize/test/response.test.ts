import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { codeResponse, errorResponse } from '../src/response.js';
import { newCode } from '../src/secrets.js';

const as: oauth.AuthorizationServer = {
  issuer: 'https://auth.example/spaces/s1',
  authorization_response_iss_parameter_supported: true,
};
const agent: oauth.Client = { client_id: 'https://agent.example/client.json' };

describe('the authorization response, as oauth4webapi checks it (RFC 9207)', () => {
  it('carries the code, the state and iss, keeping the redirect query', () => {
    const { code } = newCode('req1');
    const url = codeResponse('http://127.0.0.1:5000/cb?keep=1', {
      code,
      state: 'st',
      iss: as.issuer,
    });
    expect(new URL(url).searchParams.get('keep')).toBe('1');
    const params = oauth.validateAuthResponse(as, agent, new URL(url), 'st');
    expect(params.get('code')).toBe(code);
  });

  it('is refused by the client when iss is another issuer or the state differs', () => {
    const url = codeResponse('http://127.0.0.1/cb', {
      code: 'c',
      state: 'st',
      iss: 'https://evil.example',
    });
    expect(() => oauth.validateAuthResponse(as, agent, new URL(url), 'st')).toThrow(/iss/);
    const right = codeResponse('http://127.0.0.1/cb', { code: 'c', state: 'st', iss: as.issuer });
    expect(() => oauth.validateAuthResponse(as, agent, new URL(right), 'other')).toThrow(/state/);
  });

  it("reaches the client as an error it reads, with a description in RFC 6749's characters", () => {
    const url = errorResponse('http://127.0.0.1/cb', {
      error: 'access_denied',
      description: 'the customer said "no" — twice',
      state: 'st',
      iss: as.issuer,
    });
    try {
      oauth.validateAuthResponse(as, agent, new URL(url), 'st');
      expect.unreachable('an error response is thrown');
    } catch (error) {
      expect(error).toBeInstanceOf(oauth.AuthorizationResponseError);
      expect((error as oauth.AuthorizationResponseError).error).toBe('access_denied');
      expect((error as oauth.AuthorizationResponseError).error_description).toBe(
        "the customer said 'no' ' twice",
      );
    }
  });
});
