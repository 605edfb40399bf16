import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROUTE_POLICIES } from '../../src/domain/policy.js';
import { mountRoutes, operationOf, policyOf, type Route } from '../../src/http/route.js';
import { auditProofRoutes } from '../../src/http/routes/audit-proofs.js';
import { auditTileRoutes } from '../../src/http/routes/audit-tiles.js';
import { receiptRoutes } from '../../src/http/routes/receipts.js';
import { auditStreamRoutes } from '../../src/http/routes/audit-stream.js';
import { auditRoutes } from '../../src/http/routes/audit.js';
import { credentialRoutes } from '../../src/http/routes/credential.js';
import { dashboardRoutes } from '../../src/http/routes/dashboard.js';
import { discoveryRoutes } from '../../src/http/routes/discovery.js';
import { healthRoutes } from '../../src/http/routes/health.js';
import { issueRoutes } from '../../src/http/routes/issue.js';
import { jwksRoutes } from '../../src/http/routes/jwks.js';
import { metricsRoutes } from '../../src/http/routes/metrics.js';
import { federationMonitoringRoutes } from '../../src/http/routes/federation-monitoring.js';
import { monitoringRoutes } from '../../src/http/routes/monitoring.js';
import { openApiRoutes } from '../../src/http/routes/openapi.js';
import { statusListRoutes } from '../../src/http/routes/status-lists.js';
import { revocationRoutes } from '../../src/http/routes/revocations.js';
import { trustedIssuerRoutes } from '../../src/http/routes/trusted-issuers.js';
import { sinkRoutes } from '../../src/http/routes/sinks.js';
import { signalPollRoutes } from '../../src/http/routes/signal-poll.js';
import { ssfStreamRoutes } from '../../src/http/routes/ssf-streams.js';
import { spaceKeyRoutes } from '../../src/http/routes/space-keys.js';
import { tokenLifecycleRoutes } from '../../src/http/routes/token-lifecycle.js';
import { tokenRoutes } from '../../src/http/routes/token.js';
import { authorizeRoutes } from '../../src/http/routes/authorize.js';
import { authorizationAppRoutes } from '../../src/http/routes/authorization-app.js';

/**
 * Stands in for every dependency: any property is another stub, any call returns one. Building
 * the routes touches no database; nothing here is ever served.
 */
const stub: never = new Proxy(() => undefined, {
  get: (_target, key) => (key === 'then' ? undefined : stub),
  apply: () => stub,
}) as never;

/** The factories src/cli/api-server.ts and api-routes.ts build the app from, each called as it calls them. */
const FACTORIES: Record<string, () => readonly Route[]> = {
  auditStreamRoutes: () =>
    auditStreamRoutes(stub, stub, stub, {
      caps: { perProcess: 1, perSpace: 1, perSubject: 1 },
      heartbeatMs: 1000,
      pollMs: 1000,
      reauthorizeMs: 1000,
      login: stub,
    }).routes,
  auditRoutes: () => auditRoutes(stub, stub, stub, stub, stub),
  auditProofRoutes: () =>
    auditProofRoutes(
      stub,
      stub,
      stub,
      {
        TOKEN_ISSUER: 'http://issuer.test',
        AUDIT_CHECKPOINT_INTERVAL_SECONDS: 60,
        AUDIT_PROOF_READS_PER_MINUTE: 1,
        LIMITER_MAX_KEYS: 1,
      },
      { intervalSeconds: 60, quorum: 0, witnesses: [] },
    ),
  auditTileRoutes: () =>
    auditTileRoutes(stub, stub, { AUDIT_CHECKPOINT_INTERVAL_SECONDS: 60, policy: 'quorum none\n' }),
  receiptRoutes: () => receiptRoutes(stub, stub, { intervalSeconds: 60, quorum: 0, witnesses: [] }),
  monitoringRoutes: () => monitoringRoutes(stub, stub, stub),
  federationMonitoringRoutes: () => federationMonitoringRoutes(stub, stub, []),
  healthRoutes: () => healthRoutes(stub, stub),
  jwksRoutes: () => jwksRoutes(stub),
  discoveryRoutes: () => discoveryRoutes('http://issuer.test', {}),
  credentialRoutes: () => credentialRoutes(stub, stub),
  tokenRoutes: () => tokenRoutes(stub, stub),
  issueRoutes: () => issueRoutes(stub),
  tokenLifecycleRoutes: () => tokenLifecycleRoutes(stub),
  revocationRoutes: () => revocationRoutes(stub, 60),
  statusListRoutes: () => statusListRoutes(stub, stub),
  signalPollRoutes: () => signalPollRoutes(stub, stub),
  ssfStreamRoutes: () => ssfStreamRoutes(stub, stub, stub),
  sinkRoutes: () => sinkRoutes(stub, stub),
  trustedIssuerRoutes: () => trustedIssuerRoutes(stub, stub),
  spaceKeyRoutes: () => spaceKeyRoutes(stub, 'http://issuer.test', {}),
  dashboardRoutes: () => dashboardRoutes(),
  metricsRoutes: () => metricsRoutes(stub),
  authorizeRoutes: () => authorizeRoutes(stub, 'http://issuer.test'),
  authorizationAppRoutes: () => authorizationAppRoutes(stub),
};

/** Every route of the app, the OpenAPI document's own included. */
function appRoutes(): Route[] {
  const routes = Object.values(FACTORIES).flatMap((factory) => factory());
  return [...routes, ...openApiRoutes(routes.map(operationOf), 'http://issuer.test')];
}

describe('every route declares the policy it is guarded by', () => {
  it('walks the route factories api-server.ts calls, all of them', () => {
    const server = ['src/cli/api-server.ts', 'src/cli/api-routes.ts']
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    const called = new Set([...server.matchAll(/\b(\w+Routes)\(/g)].map((match) => match[1]!));
    called.delete('openApiRoutes');
    called.delete('mountRoutes');
    called.delete('apiRoutes');
    expect([...called].sort()).toEqual(Object.keys(FACTORIES).sort());
  });

  it('finds no route without a policy, or with a policy for another caller', () => {
    const undeclared = appRoutes().flatMap((route) => {
      try {
        policyOf(route);
        return [];
      } catch (error) {
        return [`${route.method.toUpperCase()} ${route.path}: ${(error as Error).message}`];
      }
    });
    expect(undeclared).toEqual([]);
  });

  it('has the gate refuse to mount a route without one', () => {
    const [health] = FACTORIES.healthRoutes!();
    const { policy: _policy, ...undeclared } = health!;
    expect(() => mountRoutes([undeclared as Route])).toThrow(/declares no route policy/);
    expect(() => mountRoutes([{ ...health!, policy: 'space-read' } as Route])).toThrow(
      /not for a public caller/,
    );
  });

  it('keeps changes for a role that may change: exactly these routes need it', () => {
    const changing = appRoutes()
      .filter((route) => policyOf(route) === 'space-change')
      .map((route) => `${route.method.toUpperCase()} ${route.path}`)
      .sort();
    expect(changing).toEqual(
      [
        'DELETE /v1/credential/:client_id',
        'PATCH /v1/credential/:client_id',
        'POST /v1/credential',
        'POST /v1/credential/:client_id/secret',
        'DELETE /v1/sinks/:sink_id',
        'PATCH /v1/sinks/:sink_id',
        'POST /v1/sinks',
        'POST /v1/sinks/:sink_id/pause',
        'POST /v1/sinks/:sink_id/resume',
        'POST /v1/space/signing-keys',
        'POST /v1/space/signing-keys/end-switch-over',
        'DELETE /v1/trusted-issuers/:issuer_id',
        'PATCH /v1/trusted-issuers/:issuer_id',
        'POST /v1/trusted-issuers',
        'DELETE /v1/metadata-client-domains/:domain',
        'POST /v1/metadata-client-domains',
        'POST /v1/authorization-app',
      ].sort(),
    );
    // Every other login route only reads.
    for (const route of appRoutes().filter((r) => r.caller === 'login')) {
      expect(ROUTE_POLICIES[policyOf(route)].caller).toBe('login');
      if (policyOf(route) === 'space-read') expect(route.method).toBe('get');
    }
  });

  it('declares the public ones public, explicitly', () => {
    const byPath = new Map(appRoutes().map((route) => [route.path, policyOf(route)]));
    expect(byPath.get('/healthz')).toBe('public');
    expect(byPath.get('/.well-known/jwks.json')).toBe('public');
    expect(byPath.get('/v1/issue')).toBe('private-token');
    expect(byPath.get('/v1/credential/token')).toBe('client');
  });
});
