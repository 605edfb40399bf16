import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import {
  expressResourceMetadata,
  koaResourceMetadata,
  resourceMetadataHandler,
  resourceMetadataUrl,
} from '../src/index.js';
import {
  ISSUER,
  privateToken,
  publicToken,
  refusal,
  request,
  stubVerifier,
} from './support/stub-issuer.js';

// Issue 55, item 4: the kit serves RFC 9728 metadata for its resource, and every 401 and 403
// names it (§5.1), so a client (an MCP client, an agent) learns where tokens come from.
const RESOURCE = 'https://storefront.example/mcp';
const METADATA_URL = 'https://storefront.example/.well-known/oauth-protected-resource/mcp';
const withMetadata = () =>
  stubVerifier({
    resourceMetadata: { resource: RESOURCE, scopesSupported: ['products:read', 'cart:write'] },
  });

const closers: Array<() => void> = [];
afterAll(() => closers.forEach((close) => close()));
async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  closers.push(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('RFC 9728 protected-resource metadata', () => {
  it('is described at the well-known path inserted before the resource path (§3.1)', () => {
    expect(resourceMetadataUrl(RESOURCE)).toBe(METADATA_URL);
    expect(resourceMetadataUrl('https://api.example')).toBe(
      'https://api.example/.well-known/oauth-protected-resource',
    );
    expect(resourceMetadataUrl('https://api.example/a/b')).toBe(
      'https://api.example/.well-known/oauth-protected-resource/a/b',
    );
  });

  it('lists the issuer, the scopes, the header method and DPoP, and nothing of the AS', () => {
    const metadata = withMetadata().resourceMetadata!;
    expect(metadata.url).toBe(METADATA_URL);
    expect(metadata.paths).toEqual(['/.well-known/oauth-protected-resource/mcp']);
    expect(metadata.document).toEqual({
      resource: RESOURCE,
      authorization_servers: [ISSUER],
      scopes_supported: ['products:read', 'cart:write'],
      bearer_methods_supported: ['header'],
      dpop_signing_alg_values_supported: ['EdDSA', 'ES256', 'ES384', 'PS256', 'RS256'],
      dpop_bound_access_tokens_required: false,
    });
  });

  it('refuses a resource that is not an https URL, or has a fragment, at startup', () => {
    for (const resource of ['http://api.example/mcp', 'https://api.example/#x', 'api.example']) {
      expect(() => stubVerifier({ resourceMetadata: { resource } }), resource).toThrow(TypeError);
    }
    expect(() =>
      stubVerifier({ resourceMetadata: { resource: 'http://127.0.0.1:8080' } }),
    ).not.toThrow();
  });

  it('every 401 and 403 names it; a request with no token names no error (RFC 6750 §3.1)', async () => {
    const verifier = withMetadata();
    const none = await refusal(verifier.verify(request(), { requiredScopes: ['cart:write'] }));
    expect(none.status).toBe(401);
    expect(none.challenge).toBe(`Bearer scope="cart:write", resource_metadata="${METADATA_URL}"`);
    const invalid = await refusal(verifier.verify(request(`Bearer ${await privateToken()}`)));
    expect(invalid.challenge).toMatch(
      new RegExp(
        `^Bearer error="invalid_token", error_description="[^"]+", resource_metadata="${METADATA_URL}"$`,
      ),
    );
    const scope = await refusal(
      verifier.verify(request(`Bearer ${await publicToken()}`), { requiredScopes: ['cart:write'] }),
    );
    expect(scope.status).toBe(403);
    expect(scope.challenge).toBe(
      `Bearer error="insufficient_scope", scope="cart:write", error_description="the token does not grant the scope cart:write", resource_metadata="${METADATA_URL}"`,
    );
    // Without metadata, the challenges are as before.
    expect((await refusal(stubVerifier().verify(request()))).challenge).toBe('Bearer');
  });

  it('Koa, Express and fetch serve it at its path alone (the root too with alsoAtRoot)', async () => {
    const verifier = stubVerifier({
      resourceMetadata: { resource: RESOURCE, alsoAtRoot: true, resourceName: 'Storefront' },
    });
    // Koa itself is no import of the kit's (eslint): its middleware on a context of Koa's shape.
    const koa = koaResourceMetadata(verifier);
    const viaKoa = await listen(async (req, res) => {
      const ctx = {
        method: req.method!,
        path: new URL(req.url!, 'http://x').pathname,
        status: 404,
        body: undefined as unknown,
        set: (name: string, value: string) => res.setHeader(name, value),
      };
      await koa(ctx, async () => void (ctx.status = 418));
      res.statusCode = ctx.status;
      res.end(ctx.body === undefined ? undefined : JSON.stringify(ctx.body));
    });
    const app = express();
    app.use(expressResourceMetadata(verifier));
    app.use((_request, response) => void response.status(418).end());
    const handler = resourceMetadataHandler(verifier);
    const viaFetch = await listen(async (req, res) => {
      const answer = handler(new Request(`http://x${req.url}`, { method: req.method }));
      res.writeHead(answer?.status ?? 418, Object.fromEntries(answer?.headers ?? []));
      res.end(answer ? await answer.text() : undefined);
    });
    for (const base of [viaKoa, await listen(app), viaFetch]) {
      for (const path of [
        '/.well-known/oauth-protected-resource/mcp',
        '/.well-known/oauth-protected-resource',
      ]) {
        const response = await fetch(`${base}${path}`);
        expect(response.status, `${base}${path}`).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await response.json()).toMatchObject({
          resource: RESOURCE,
          resource_name: 'Storefront',
        });
      }
      expect((await fetch(`${base}/.well-known/oauth-protected-resource/other`)).status).toBe(418);
      expect(
        (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`, { method: 'POST' }))
          .status,
      ).toBe(418);
    }
  });

  it('a metadata adapter of a verifier without metadata throws when made', () => {
    expect(() => koaResourceMetadata(stubVerifier())).toThrow(/resourceMetadata/);
  });
});
