import { Validator } from '@seriousme/openapi-schema-validator';
import { decodeJwt, exportJWK, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { signTreeHeads } from '../../../src/audit-trail/seal/tree-head-signing.js';
import { loadAuditSigningKey } from '../../../src/audit-trail/audit-key.js';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { signTreeHead, treeOrigin } from '#audit-log/transparency/tree-head.js';
import { catchUp } from '../../../src/projections/batches.js';
import { openApiPath } from '../../../src/http/openapi/document.js';
import { freePort } from '../../../src/net/free-port.js';
import { contractChecker, type ContractChecker } from '../../support/contract.js';
import { s256 } from '#oauth-authorize/pkce.js';
import { startLocalDocuments } from '../../support/local-documents.js';
import { AUDIENCE, startTestService, type TestService } from '../../support/test-service.js';

type Doc = Parameters<typeof contractChecker>[0] & { paths: Record<string, object> };

let service: TestService;
let document: Doc;
let contract: ContractChecker;
const SPACE = 'space-openapi';
const CALLBACK = 'http://127.0.0.1/callback';

beforeAll(async () => {
  const port = await freePort();
  service = await startTestService({
    PORT: String(port),
    TOKEN_ISSUER: `http://127.0.0.1:${port}`,
    // The log tree's heads are public once their window is over: a window of a second.
    AUDIT_CHECKPOINT_INTERVAL_SECONDS: '1',
  });
  document = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as Doc;
  contract = contractChecker(document);
});

/** One request, its response checked against the document, its body parsed when JSON. */
async function call(
  method: string,
  path: string,
  options: {
    headers?: Record<string, string>;
    json?: unknown;
    form?: Record<string, string>;
    /** A browser's redirect, not followed: its Location and Set-Cookie read. */
    manual?: boolean;
  } = {},
): Promise<{ status: number; body: unknown; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(options.form).toString();
  }
  const redirect = options.manual ? 'manual' : 'follow';
  const response = await fetch(`${service.baseUrl}${path}`, { method, headers, body, redirect });
  const contentType = response.headers.get('content-type') ?? '';
  // A live feed never ends: its headers and status are the contract; the body is left unread.
  const live = contentType.startsWith('text/event-stream');
  if (live) await response.body?.cancel();
  const text = live ? '' : await response.text();
  const parsed = /json/.test(contentType) && !/ndjson/.test(contentType) ? JSON.parse(text) : text;
  contract.check(method, path, response.status, contentType, parsed);
  return { status: response.status, body: parsed, text, headers: response.headers };
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((document as unknown as { openapi: string }).openapi).toMatch(/^3\.1\./);
  });

  it('names every operation with a unique identifier client generators accept', () => {
    const ids = Object.values(document.paths).flatMap((item) =>
      Object.values(item as Record<string, { operationId: string }>).map((op) => op.operationId),
    );
    expect(ids.filter((id) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('documents every route the routers serve, and nothing else', () => {
    const served = new Set(
      service.api.served.map((route) => `${route.method} ${openApiPath(route.path)}`),
    );
    const documented = new Set(
      Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method} ${path}`),
      ),
    );
    expect([...served].sort()).toEqual([...documented].sort());
    expect(served.size).toBeGreaterThan(25);
  });

  it('matches every real response of a walk through the API, success and error alike', async () => {
    const login = {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
    };
    const otherSpace = { ...login, 'x-service-space-id': 'not-mine' };

    for (const path of [
      '/livez',
      '/readyz',
      '/healthz',
      '/.well-known/jwks.json',
      '/openapi.json',
    ]) {
      expect((await call('GET', path)).status).toBe(200);
    }
    expect((await call('GET', '/.well-known/oauth-authorization-server')).status).toBe(200);
    expect((await call('GET', '/.well-known/openid-configuration')).status).toBe(200);
    for (const asset of ['', '/dashboard.js', '/dashboard.css', '/uplot.js', '/uplot.css']) {
      expect((await call('GET', `/dashboard${asset}`)).status).toBe(200);
    }

    // Credentials, and their errors.
    const created = await call('POST', '/v1/credential', {
      headers: login,
      json: { name: 'shop', description: 'web' },
    });
    expect(created.status).toBe(201);
    const { client_id: clientId, client_secret: secret } = created.body as {
      client_id: string;
      client_secret: string;
    };
    expect(
      (await call('POST', '/v1/credential', { headers: login, json: { name: '' } })).status,
    ).toBe(400);
    expect(
      (await call('POST', '/v1/credential', { json: { name: 'x', description: 'y' } })).status,
    ).toBe(401);
    expect(
      (
        await call('POST', '/v1/credential', {
          headers: otherSpace,
          json: { name: 'x', description: 'y' },
        })
      ).status,
    ).toBe(403);
    expect((await call('GET', '/v1/credentials?limit=5', { headers: login })).status).toBe(200);
    expect((await call('GET', `/v1/credential/${clientId}`, { headers: login })).status).toBe(200);
    expect((await call('GET', '/v1/credential/ci_nothing', { headers: login })).status).toBe(404);
    expect(
      (
        await call('PATCH', `/v1/credential/${clientId}`, {
          headers: login,
          json: { rate_limit_per_minute: 1000 },
        })
      ).status,
    ).toBe(200);

    // Tokens.
    const grant = {
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
      audience: AUDIENCE,
    };
    const token = await call('POST', '/v1/credential/token', { form: grant });
    expect(token.status).toBe(200);
    const privateToken = (token.body as { access_token: string }).access_token;
    expect(
      (await call('POST', '/v1/credential/token', { json: { ...grant, client_secret: 'wrong' } }))
        .status,
    ).toBe(401);
    expect(
      (await call('POST', '/v1/credential/token', { json: { ...grant, grant_type: 'password' } }))
        .status,
    ).toBe(400);
    const issue = { authorization: `Bearer ${privateToken}`, 'x-service-space-id': SPACE };
    const publicToken = await call('POST', '/v1/issue', {
      headers: issue,
      json: { customer_id: 'c-1', segment_id: 's-1' },
    });
    expect(publicToken.status).toBe(200);
    expect(
      (
        await call('POST', '/v1/issue', {
          headers: { ...issue, authorization: 'Bearer nope' },
          json: { customer_id: 'c', segment_id: 's' },
        })
      ).status,
    ).toBe(401);
    expect(
      (await call('POST', '/v1/issue', { headers: issue, json: { customer_id: 'c' } })).status,
    ).toBe(400);
    const client = { client_id: clientId, client_secret: secret };
    const publicJwt = (publicToken.body as { token: string }).token;
    expect(
      await call('POST', '/v1/introspect', { form: { ...client, token: publicJwt } }),
    ).toMatchObject({ status: 200, body: { active: true } });
    expect(
      (await call('POST', '/v1/revoke', { form: { ...client, token: publicJwt } })).status,
    ).toBe(200);
    expect(
      await call('POST', '/v1/introspect', { form: { ...client, token: publicJwt } }),
    ).toMatchObject({ status: 200, body: { active: false } });
    expect((await call('POST', '/v1/introspect', { form: { token: publicJwt } })).status).toBe(400);
    expect(
      (
        await call('POST', `/v1/credential/${clientId}/secret`, {
          headers: login,
          json: { overlap_seconds: 0 },
        })
      ).status,
    ).toBe(200);
    expect((await call('GET', `/v1/revocations?space_id=${SPACE}`)).status).toBe(200);
    expect((await call('GET', '/v1/revocations')).status).toBe(400);

    // Views over the projections.
    for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);
    const { uri } = (decodeJwt(privateToken).status as { status_list: { uri: string } })
      .status_list;
    expect((await call('GET', new URL(uri).pathname)).status).toBe(200);
    expect((await call('GET', `/spaces/${SPACE}/statuslists/${'A'.repeat(22)}`)).status).toBe(404);
    expect((await call('GET', `/spaces/${SPACE}/statuslists/short`)).status).toBe(400);
    expect(
      (await call('GET', `/v1/audit/events?client_id=${clientId}`, { headers: login })).status,
    ).toBe(200);
    expect((await call('GET', '/v1/audit/events?limit=0', { headers: login })).status).toBe(400);
    const to = new Date(Date.now() + 60_000).toISOString();
    expect(
      (await call('GET', `/v1/audit/export?from=2020-01-01T00:00:00Z&to=${to}`, { headers: login }))
        .status,
    ).toBe(200);
    expect((await call('GET', '/v1/audit/checkpoints', { headers: login })).status).toBe(200);
    // The transparency log: before any signed head, then sealed and signed as the projector does.
    expect((await call('GET', '/v1/audit/tree-head', { headers: login })).status).toBe(404);
    while ((await sealLog(service.database.db, 500)) > 0);
    const auditKey = await loadAuditSigningKey(undefined, service.dataDir);
    await signTreeHeads(service.database.db, (spaceId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, spaceId), size, root),
    );
    const head = await call('GET', '/v1/audit/tree-head', { headers: login });
    expect(head.status).toBe(200);
    // The log tree's public tiles (C2SP tlog-tiles), once its head's window is over.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const checkpoint = await call('GET', '/audit/log/checkpoint');
    expect(checkpoint.status).toBe(200);
    const logSize = Number(checkpoint.text.split('\n')[1]);
    const tile0 = logSize >= 256 ? '0/000' : `0/000.p/${logSize}`;
    expect((await call('GET', `/audit/log/tile/${tile0}`)).status).toBe(200);
    expect((await call('GET', '/audit/log/policy')).status).toBe(200);
    expect((await call('GET', '/audit/log/tile/0/x000/000')).status).toBe(404);
    expect((await call('GET', `/audit/log/tile/0/000.p/1${'0'.repeat(120)}`)).status).toBe(400);
    const receipt = await call('GET', '/v1/token/receipt', {
      headers: { authorization: `Bearer ${privateToken}` },
    });
    expect(receipt.status).toBe(200);
    expect(
      (await call('GET', '/v1/token/receipt', { headers: { authorization: 'Bearer x' } })).status,
    ).toBe(401);
    const size = Number((head.body as { tree_size: number }).tree_size);
    const first = (await call('GET', '/v1/audit/events?kind=private&limit=1', { headers: login }))
      .body as { items: Array<{ jti: string }> };
    expect(
      (
        await call('GET', `/v1/audit/proof/inclusion?jti=${first.items[0]!.jti}`, {
          headers: login,
        })
      ).status,
    ).toBe(200);
    expect((await call('GET', '/v1/audit/proof/inclusion', { headers: login })).status).toBe(400);
    expect(
      (await call('GET', `/v1/audit/receipt?jti=${first.items[0]!.jti}`, { headers: login }))
        .status,
    ).toBe(200);
    expect((await call('GET', '/v1/audit/receipt', { headers: login })).status).toBe(400);
    expect(
      (
        await call('GET', '/v1/token/receipt?event=revoked', {
          headers: { authorization: `Bearer ${privateToken}` },
        })
      ).status,
    ).toBe(404);
    expect(
      (await call('GET', `/v1/audit/proof/consistency?from=1&to=${size}`, { headers: login }))
        .status,
    ).toBe(200);
    expect((await call('GET', '/v1/audit/stream', { headers: login })).status).toBe(200);
    expect((await call('GET', '/v1/audit/stream?last_event_id=x', { headers: login })).status).toBe(
      400,
    );
    expect(
      (await call('GET', `/v1/monitoring/clients/${clientId}/rates?window=60m`, { headers: login }))
        .status,
    ).toBe(200);
    expect(
      (await call('GET', `/v1/monitoring/clients/${clientId}/scopes?window=1h`, { headers: login }))
        .status,
    ).toBe(200);
    const top = await call('GET', '/v1/monitoring/top-clients', { headers: login });
    expect(top.body).toMatchObject({
      clients: [{ client_id: clientId, private_tokens: 1, public_tokens: 1 }],
    });
    const overview = await call('GET', '/v1/monitoring/overview', { headers: login });
    expect(overview.body).toMatchObject({
      totals: { private_tokens: 1, public_tokens: 1, rejected_authentications: 1 },
    });
    expect(
      (await call('GET', '/v1/monitoring/overview?window=soon', { headers: login })).status,
    ).toBe(400);
    for (const path of ['/v1/monitoring/trusted-issuers', '/v1/monitoring/agents']) {
      expect((await call('GET', path, { headers: login })).status).toBe(200);
      expect((await call('GET', `${path}?window=8d`, { headers: login })).status).toBe(400);
    }
    expect((await call('DELETE', `/v1/credential/${clientId}`, { headers: login })).status).toBe(
      200,
    );

    // Audit sinks (issue 43): made, listed, changed, paused, resumed, and their errors.
    const sink = await call('POST', '/v1/sinks', {
      headers: login,
      json: { name: 'siem', target: { kind: 'webhook', url: 'https://siem.example/intake' } },
    });
    expect(sink.status).toBe(201);
    const sinkId = (sink.body as { sink_id: string }).sink_id;
    expect((await call('GET', '/v1/sinks', { headers: login })).status).toBe(200);
    expect(
      (
        await call('PATCH', `/v1/sinks/${sinkId}`, {
          headers: login,
          json: { rotate_secret: true },
        })
      ).status,
    ).toBe(200);
    expect((await call('POST', `/v1/sinks/${sinkId}/pause`, { headers: login })).status).toBe(200);
    expect((await call('POST', `/v1/sinks/${sinkId}/resume`, { headers: login })).status).toBe(200);
    expect((await call('POST', '/v1/sinks/snk_none/pause', { headers: login })).status).toBe(404);
    expect((await call('DELETE', `/v1/sinks/${sinkId}`, { headers: login })).status).toBe(204);
    expect((await call('DELETE', '/v1/sinks/snk_none', { headers: login })).status).toBe(404);
    expect(
      (
        await call('POST', '/v1/sinks', {
          headers: login,
          json: { name: 'x', target: { kind: 'webhook', url: 'http://169.254.169.254/' } },
        })
      ).status,
    ).toBe(400);

    // Trusted issuers (issue 54): trusted, listed, changed, removed, and their errors.
    const workload = await call('POST', '/v1/credential', {
      headers: login,
      json: { name: 'workload', description: 'a cluster workload' },
    });
    const trusted = {
      iss: 'https://kubernetes.default.svc.cluster.local',
      jwks: { keys: [await exportJWK((await generateKeyPair('ES256')).publicKey)] },
      audience: service.config.TOKEN_ISSUER,
      rules: [
        {
          id: 'checkout',
          claims: { sub: 'system:serviceaccount:shop:checkout' },
          client_id: (workload.body as { client_id: string }).client_id,
        },
      ],
    };
    const issuer = await call('POST', '/v1/trusted-issuers', { headers: login, json: trusted });
    expect(issuer.status).toBe(201);
    const issuerId = (issuer.body as { issuer_id: string }).issuer_id;
    expect(
      (await call('POST', '/v1/trusted-issuers', { headers: login, json: trusted })).status,
    ).toBe(409);
    expect((await call('GET', '/v1/trusted-issuers', { headers: login })).status).toBe(200);
    expect(
      (
        await call('PATCH', `/v1/trusted-issuers/${issuerId}`, {
          headers: login,
          json: { ...trusted, audience: `${service.config.TOKEN_ISSUER}/v1/credential/token` },
        })
      ).status,
    ).toBe(200);
    expect(
      (await call('PATCH', '/v1/trusted-issuers/tis_none', { headers: login, json: trusted }))
        .status,
    ).toBe(404);
    expect(
      (await call('DELETE', `/v1/trusted-issuers/${issuerId}`, { headers: login })).status,
    ).toBe(204);
    expect((await call('DELETE', '/v1/trusted-issuers/tis_none', { headers: login })).status).toBe(
      404,
    );

    // Domains whose client ID metadata documents the space takes as clients (issue 55 item 3).
    const domain = { domain: 'agents.example.com', scopes: ['orders:read'] };
    const domains = '/v1/metadata-client-domains';
    expect((await call('POST', domains, { headers: login, json: domain })).status).toBe(201);
    expect((await call('GET', domains, { headers: login })).status).toBe(200);
    expect((await call('DELETE', `${domains}/agents.example.com`, { headers: login })).status).toBe(
      204,
    );
    expect((await call('DELETE', `${domains}/none.example`, { headers: login })).status).toBe(404);

    // The authorization endpoint (issue 64): the space's page, a public agent's requests, the
    // storefront's decisions with its private token, the browser back with its cookie.
    const documents = await startLocalDocuments();
    const agent = `https://localhost:${documents.port}/agents/walk.json`;
    documents.serve('/agents/walk.json', {
      body: { client_id: agent, token_endpoint_auth_method: 'none', redirect_uris: [CALLBACK] },
    });
    expect(
      (await call('POST', domains, { headers: login, json: { domain: 'localhost' } })).status,
    ).toBe(201);
    const app = { interaction_url: 'https://shop.example/consent' };
    expect(
      (await call('POST', '/v1/authorization-app', { headers: login, json: app })).status,
    ).toBe(200);
    expect((await call('GET', '/v1/authorization-app', { headers: login })).status).toBe(200);
    const authorize = async () => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: agent,
        code_challenge: s256('v'.repeat(43)),
        code_challenge_method: 'S256',
      });
      const asked = await call('GET', `/spaces/${SPACE}/authorize?${query}`, { manual: true });
      expect(asked.status).toBe(302);
      const at = new URL(asked.headers.get('location')!);
      const cookie = asked.headers.get('set-cookie')!.split(';')[0]!;
      return { id: at.searchParams.get('authorization_request')!, cookie };
    };
    const bearer = { authorization: `Bearer ${privateToken}` };
    const requests = '/v1/authorization-requests';
    const asking = await authorize();
    expect((await call('GET', `${requests}/${asking.id}`, { headers: bearer })).status).toBe(200);
    const decision = { headers: bearer, json: { customer_id: 'c-1', segment_id: 'retail' } };
    const accepted = await call('POST', `${requests}/${asking.id}/accept`, decision);
    expect(accepted.status).toBe(200);
    const resume = new URL((accepted.body as { redirect_to: string }).redirect_to);
    const back = { headers: { cookie: asking.cookie }, manual: true };
    expect((await call('GET', resume.pathname + resume.search, back)).status).toBe(302);
    const consents = '/v1/consents';
    expect((await call('GET', `${consents}?customer_id=c-1`, { headers: bearer })).status).toBe(
      200,
    );
    expect((await call('GET', consents, { headers: bearer })).status).toBe(400);
    const withdraw = { headers: bearer, json: {} };
    expect((await call('POST', `${consents}/${asking.id}/revoke`, withdraw)).status).toBe(200);
    expect((await call('POST', `${consents}/ar_nothing/revoke`, withdraw)).status).toBe(400);
    // Its receipts, once the log's head holding them is published.
    while ((await sealLog(service.database.db, 500)) > 0);
    await signTreeHeads(service.database.db, (spaceId, size, root) =>
      signTreeHead(auditKey, treeOrigin(service.config.TOKEN_ISSUER, spaceId), size, root),
    );
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const consentReceipt = `${consents}/${asking.id}/receipt`;
    expect((await call('GET', consentReceipt, { headers: bearer })).status).toBe(200);
    expect((await call('GET', `${consentReceipt}?event=revoked`, { headers: bearer })).status).toBe(
      200,
    );
    expect((await call('GET', `${consentReceipt}?event=x`, { headers: bearer })).status).toBe(400);
    expect((await call('GET', `${consents}/ar_nothing/receipt`, { headers: bearer })).status).toBe(
      400,
    );
    const second = await authorize();
    const rejected = await call('POST', `${requests}/${second.id}/reject`, {
      headers: bearer,
      json: {},
    });
    expect(rejected.status).toBe(200);
    expect((await call('GET', `${requests}/${second.id}`, { headers: bearer })).status).toBe(200);

    // A space's own issuer (issue 42): turned on, its keys and metadata, and a shared space's 404.
    expect((await call('POST', '/v1/space/signing-keys', { headers: login })).status).toBe(200);
    for (const path of [
      `/spaces/${SPACE}/.well-known/jwks.json`,
      `/.well-known/oauth-authorization-server/spaces/${SPACE}`,
      `/spaces/${SPACE}/.well-known/openid-configuration`,
      `/.well-known/ssf-configuration/spaces/${SPACE}`,
    ]) {
      expect((await call('GET', path)).status).toBe(200);
    }
    expect((await call('GET', '/spaces/not-mine/.well-known/jwks.json')).status).toBe(404);
    // A polled Shared Signals stream of the space (issue 65): polled with its secret, and without.
    const polled = await call('POST', '/v1/sinks', {
      headers: login,
      json: { name: 'signals', target: { kind: 'poll' } },
    });
    expect(polled.status).toBe(201);
    const stream = polled.body as { sink_id: string; secret: string };
    const pollPath = `/v1/ssf/poll/${stream.sink_id}`;
    const pollHeaders = { authorization: `Bearer ${stream.secret}` };
    expect((await call('POST', pollPath, { headers: pollHeaders, json: { ack: [] } })).status).toBe(
      200,
    );
    expect((await call('POST', pollPath, { json: {} })).status).toBe(401);
    // A receiver manages its own stream (SSF 1.0 §8) with a stream-management token.
    const receiver = await call('POST', '/v1/credential', {
      headers: login,
      json: { name: 'receiver', description: 'ssf', scopes: ['ssf:streams'] },
    });
    const ssf = `${service.config.TOKEN_ISSUER}/v1/ssf`;
    const managing = await call('POST', '/v1/credential/token', {
      form: {
        ...(receiver.body as Record<string, string>),
        grant_type: 'client_credentials',
        audience: ssf,
        scope: 'ssf:streams',
      },
    });
    expect(managing.status).toBe(200);
    const manager = {
      authorization: `Bearer ${(managing.body as { access_token: string }).access_token}`,
    };
    const own = await call('POST', '/v1/ssf/stream', { headers: manager, json: {} });
    expect(own.status).toBe(201);
    const ownId = (own.body as { stream_id: string }).stream_id;
    const asked = { headers: manager, json: { stream_id: ownId } };
    for (const [method, path, options, status] of [
      ['GET', `/v1/ssf/stream?stream_id=${ownId}`, { headers: manager }, 200],
      ['GET', '/v1/ssf/stream', { headers: manager }, 200],
      ['PATCH', '/v1/ssf/stream', asked, 200],
      ['PUT', '/v1/ssf/stream', asked, 200],
      ['GET', `/v1/ssf/status?stream_id=${ownId}`, { headers: manager }, 200],
      ['POST', '/v1/ssf/status', { ...asked, json: { stream_id: ownId, status: 'enabled' } }, 200],
      ['POST', '/v1/ssf/verify', asked, 204],
      ['POST', '/v1/ssf/verify', asked, 429],
      ['POST', `/v1/ssf/streams/${ownId}/poll`, { headers: manager, json: {} }, 200],
      ['GET', '/v1/ssf/stream', { headers: pollHeaders }, 401],
      ['DELETE', `/v1/ssf/stream?stream_id=${ownId}`, { headers: manager }, 204],
      ['DELETE', `/v1/ssf/stream?stream_id=${ownId}`, { headers: manager }, 404],
    ] as const) {
      expect((await call(method, path, options)).status, `${method} ${path}`).toBe(status);
    }
    // Its switch-over ended (last: the space's shared-ring tokens are honoured no more).
    const ending = { headers: login };
    expect((await call('POST', '/v1/space/signing-keys/end-switch-over', ending)).status).toBe(200);

    // Every documented operation answered at least once with a documented success (or redirect).
    const succeeded = new Set(
      [...contract.seen]
        .filter((seen) => / [23]\d\d$/.test(seen))
        .map((seen) => seen.replace(/ \d+$/, '')),
    );
    const documented = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method} ${path}`),
    );
    expect(documented.filter((operation) => !succeeded.has(operation))).toEqual([]);
  });
});
