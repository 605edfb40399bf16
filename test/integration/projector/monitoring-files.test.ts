import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

let service: TestService;
let exposition: string;

beforeAll(async () => {
  service = await startTestService({ METRICS_PORT: '0' });
  await privateTokenVia(service, await createCredentialVia(service, 'space-monitoring'));
  exposition = await (await fetch(`http://127.0.0.1:${service.api.metricsPort}/metrics`)).text();
});

/** Every sample name /metrics can carry: histograms as their _bucket, _sum and _count series. */
function exposedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    if (type === 'histogram')
      for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else names.add(name!);
  }
  return names;
}

const metricsIn = (expr: string) =>
  [...expr.matchAll(/\btoken_authority_[a-z0-9_]+/g)].map((m) => m[0]);

describe('monitoring as operators run it', () => {
  it('serves /metrics on METRICS_PORT and not on the API port', async () => {
    expect(service.api.metricsPort).not.toBe(service.api.port);
    expect((await fetch(`${service.baseUrl}/metrics`)).status).toBe(404);
    expect(exposition).toContain('# TYPE token_authority_tokens_issued_total counter');
    expect(exposition).toMatch(/^token_authority_database_up 1$/m);
    // The dashboards select issuance by route label; it must be the route template.
    expect(exposition).toContain('route="/v1/credential/token"');
  });

  it('queries only metrics /metrics exposes, in the Grafana dashboard', async () => {
    const dashboard = JSON.parse(await readFile('monitoring/grafana-dashboard.json', 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const exposed = exposedNames(exposition);
    const queried = dashboard.panels.flatMap((panel) =>
      panel.targets.flatMap((t) => metricsIn(t.expr)),
    );
    expect(queried.length).toBeGreaterThan(15);
    expect(queried.filter((name) => !exposed.has(name))).toEqual([]);
    // What the issue asks to see: issuance, rejections, 429s, projector and chain lag, failed
    // appends, database availability.
    for (const needed of [
      'token_authority_tokens_issued_total',
      'token_authority_rejected_client_authentications_total',
      'token_authority_rate_limited_total',
      'token_authority_projector_lag_seconds',
      'token_authority_append_failures_total',
      'token_authority_database_up',
    ]) {
      expect(queried).toContain(needed);
    }
  });

  it('alerts only on metrics /metrics exposes, in the Prometheus rules', async () => {
    const rules = parse(await readFile('monitoring/prometheus-alerts.yml', 'utf8')) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string; for: string }> }>;
    };
    const exposed = exposedNames(exposition);
    const all = rules.groups.flatMap((group) => group.rules);
    expect(all.map((rule) => rule.alert)).toEqual(
      expect.arrayContaining([
        'TokenAuthorityDatabaseDown',
        'TokenAuthorityAppendFailures',
        'TokenAuthorityProjectorLagging',
        'TokenAuthorityChainLagging',
        'TokenAuthorityRejectedAuthenticationsHigh',
        'TokenAuthorityRateLimiting',
      ]),
    );
    for (const rule of all) {
      expect(metricsIn(rule.expr).length, rule.alert).toBeGreaterThan(0);
      expect(
        metricsIn(rule.expr).filter((name) => !exposed.has(name)),
        rule.alert,
      ).toEqual([]);
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
    }
  });
});
