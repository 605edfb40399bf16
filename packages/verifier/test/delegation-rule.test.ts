import { describe, expect, it } from 'vitest';
import { koaVerifier, type RouteRequirements } from '../src/index.js';
import {
  privateToken,
  publicToken,
  refusal,
  request,
  stubVerifier,
} from './support/stub-issuer.js';

// Issue 55, item 4: the kit exposes the `act` chain and holds each route to its delegation rule.
const AGENT = 'ci_agent';
const STOREFRONT = 'ci_storefront';
const verifier = stubVerifier();
const bearer = async (token: Promise<string>) => request(`Bearer ${await token}`);

describe('the act chain and delegation per route', () => {
  it('exposes act as a list, outermost first; a private token has none', async () => {
    const plain = await verifier.verify(await bearer(publicToken([STOREFRONT])));
    expect(plain.actors).toEqual([STOREFRONT]);
    const delegated = await verifier.verify(await bearer(publicToken(['ci_b', AGENT, STOREFRONT])));
    expect(delegated.actors).toEqual(['ci_b', AGENT, STOREFRONT]);
    expect(delegated.act).toEqual({ sub: 'ci_b', act: { sub: AGENT, act: { sub: STOREFRONT } } });
    const server = await verifier.verify(await bearer(privateToken()), { kinds: ['private'] });
    expect(server.actors).toEqual([]);
  });

  it('required: a token no agent holds is 403 delegation_required', async () => {
    const route: RouteRequirements = { delegation: 'required' };
    await expect(
      verifier.verify(await bearer(publicToken([AGENT, STOREFRONT])), route),
    ).resolves.toBeTruthy();
    const plain = await refusal(verifier.verify(await bearer(publicToken([STOREFRONT])), route));
    expect(plain.status).toBe(403);
    expect(plain.challenge).toBe(
      'Bearer error="delegation_required", error_description="this route takes only a token an agent holds for a customer (RFC 8693 act)"',
    );
    const server = await refusal(
      verifier.verify(await bearer(privateToken()), { ...route, kinds: ['private'] }),
    );
    expect(server.code).toBe('delegation_required');
  });

  it('refused: a token an agent holds is 403 delegation_refused, naming the agent', async () => {
    const route: RouteRequirements = { delegation: 'refused' };
    await expect(
      verifier.verify(await bearer(publicToken([STOREFRONT])), route),
    ).resolves.toBeTruthy();
    const delegated = await refusal(
      verifier.verify(await bearer(publicToken([AGENT, STOREFRONT])), route),
    );
    expect(delegated.status).toBe(403);
    expect(delegated.challenge).toMatch(
      /^Bearer error="delegation_refused", error_description="[^"]*ci_agent/,
    );
  });

  it('agents: every agent of the chain must be one the route serves', async () => {
    const route: RouteRequirements = { delegation: 'required', agents: [AGENT] };
    await expect(
      verifier.verify(await bearer(publicToken([AGENT, STOREFRONT])), route),
    ).resolves.toBeTruthy();
    for (const chain of [
      ['ci_other', STOREFRONT],
      ['ci_other', AGENT, STOREFRONT],
      [AGENT, 'ci_other', STOREFRONT],
    ]) {
      const other = await refusal(verifier.verify(await bearer(publicToken(chain)), route));
      expect(other.code, chain.join()).toBe('delegation_refused');
    }
    // With `allowed`, the listed agents and tokens no agent holds.
    const allowed = { delegation: 'allowed', agents: [AGENT] } as const;
    await expect(
      verifier.verify(await bearer(publicToken([STOREFRONT])), allowed),
    ).resolves.toBeTruthy();
    expect(
      (await refusal(verifier.verify(await bearer(publicToken(['ci_other', STOREFRONT])), allowed)))
        .code,
    ).toBe('delegation_refused');
  });

  it('scopes are checked before delegation; an unknown rule throws at startup', async () => {
    const both = { delegation: 'required', requiredScopes: ['checkout:write'] } as const;
    expect(
      (await refusal(verifier.verify(await bearer(publicToken([STOREFRONT])), both))).code,
    ).toBe('insufficient_scope');
    const typo = { delegation: 'require' } as unknown as RouteRequirements;
    expect(() => koaVerifier(verifier, { origin: 'https://storefront.example', ...typo })).toThrow(
      TypeError,
    );
    expect(() =>
      koaVerifier(verifier, {
        origin: 'https://storefront.example',
        delegation: 'refused',
        agents: [AGENT],
      }),
    ).toThrow(/serves no agent/);
  });
});
