import { describe, expect, it } from 'vitest';
import {
  issuerFetch,
  privateToken,
  refusal,
  request,
  stubVerifier,
  ISSUER,
} from './support/stub-issuer.js';

const status = { status_list: { idx: 3, uri: `${ISSUER}/spaces/space-kit/statuslists/x` } };
const rule = { iss: 'https://ci.example', issuer_id: 'ti_1', rule: 'deploy' };

/** The stub issuer with its status lists out of reach (the service's projector away, say). */
const unreachableLists = () =>
  stubVerifier({
    kinds: ['private'],
    fetch: (input, init) =>
      String(input).includes('/statuslists/')
        ? Promise.reject(new TypeError('fetch failed'))
        : issuerFetch(input, init),
  });

describe('a status list out of reach (the kit, issue 65)', () => {
  it('leaves a token to the revocation list, which holds every rule but an issuer rule', async () => {
    const token = await privateToken({ status });
    await expect(unreachableLists().verify(request(`Bearer ${token}`))).resolves.toMatchObject({
      client_id: 'ci_storefront',
    });
  });

  it('holds a token bought under a trusted issuer rule at 503 until its list is read', async () => {
    const token = await privateToken({ status, issuer_rule: rule });
    const refused = await refusal(unreachableLists().verify(request(`Bearer ${token}`)));
    expect(refused.status).toBe(503);
  });
});
