import { API_NODE_FLAGS } from '../../src/config/node-flags.js';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { configSchema, loadConfig } from '../../src/config/config.js';
import { forcedExitAfterMs } from '../../src/cli/process-lifecycle.js';
import { PATRONI_LOOP_WAIT_SECONDS, PATRONI_TTL_SECONDS } from '../../tools/fleet/configs.js';

/** deploy/kubernetes, parsed: the manifests say what docs/scaling.md says, and name real settings. */
const DIR = 'deploy/kubernetes';
type Doc = {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown>;
  resources?: string[];
};
type Container = {
  name: string;
  command: string[];
  env: { name: string; value?: string; valueFrom?: unknown }[];
  readinessProbe?: { httpGet: { path: string } };
  livenessProbe?: { httpGet?: { path: string }; exec?: unknown };
};
const files = readdirSync(DIR).filter((file) => file.endsWith('.yaml'));
const docs = files.flatMap((file) =>
  parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Doc;
  }),
);
const named = (kind: string, name: string) =>
  docs.find((doc) => doc.kind === kind && doc.metadata?.name === name)!;
const podOf = (doc: Doc) =>
  (doc.spec.template as { spec: { containers: Container[] } }).spec.containers[0]!;
const envOf = (container: Container) => new Map(container.env.map((e) => [e.name, e]));
const SETTINGS = new Set(Object.keys(configSchema.shape));
/** The service's own workloads (otel-collector.yaml runs someone else's image beside them). */
const ours = (kinds: readonly string[]) =>
  docs.filter((d) => kinds.includes(d.kind) && d.metadata.name.startsWith('token-authority'));
// Variables that only compose other values ($(VAR) in Kubernetes), not settings of ours.
const HELPERS = new Set([
  'OWNER_PASSWORD',
  'API_LOGIN_PASSWORD_VALUE',
  'PROJECTOR_LOGIN_PASSWORD_VALUE',
]);

describe('deploy/kubernetes', () => {
  it('is valid YAML with a kind and a name everywhere, and the kustomization lists every file', () => {
    for (const doc of docs) {
      expect(doc.apiVersion).toBeTruthy();
      expect(doc.kind).toBeTruthy();
      if (doc.kind !== 'Kustomization') expect(doc.metadata.name).toBeTruthy();
    }
    const kustomization = docs.find((doc) => doc.kind === 'Kustomization')!;
    expect([...kustomization.resources!].sort()).toEqual(
      files.filter((file) => file !== 'kustomization.yaml').sort(),
    );
  });

  it('every environment variable is a setting the service reads', () => {
    for (const doc of ours(['Deployment', 'StatefulSet', 'Job'])) {
      const container = podOf(doc);
      const unknown = container.env
        .map((e) => e.name)
        .filter((name) => !SETTINGS.has(name) && !HELPERS.has(name));
      expect(unknown, doc.metadata.name).toEqual([]);
    }
  });

  it('the API: replicas behind probes of real routes, its own login only, limits shared over Postgres', () => {
    const api = named('Deployment', 'token-authority-api');
    expect(api.spec.replicas).toBeGreaterThanOrEqual(2);
    const container = podOf(api);
    expect(container.command).toEqual(['node', ...API_NODE_FLAGS, 'dist/cli/api.js']);
    expect(container.readinessProbe?.httpGet.path).toBe('/readyz');
    expect(container.livenessProbe?.httpGet?.path).toBe('/livez');
    const env = envOf(container);
    expect(env.get('LIMITS_SYNC')?.value).toBe('postgres');
    expect(env.get('NODE_ENV')?.value).toBe('production');
    expect(env.get('DATABASE_URL')?.value).toContain('token_authority_api_login');
    expect(env.get('READ_DATABASE_URL')?.value).toContain('-repl');
    for (const forbidden of [
      'MIGRATION_DATABASE_URL',
      'AUDIT_SIGNING_KEY',
      'AUDIT_CHECKPOINT_DIR',
    ]) {
      expect(env.has(forbidden), forbidden).toBe(false);
    }
    expect(named('PodDisruptionBudget', 'token-authority-api').spec.minAvailable).toBe(2);
  });

  it('the projector: two, the audit signing key and checkpoints, no token secret', () => {
    const projector = named('StatefulSet', 'token-authority-projector');
    expect(projector.spec.replicas).toBe(2);
    const env = envOf(podOf(projector));
    expect(env.has('AUDIT_SIGNING_KEY')).toBe(true);
    expect(env.get('DATABASE_URL')?.value).toContain('token_authority_projector_login');
    for (const forbidden of [
      'SIGNING_KEY_ENCRYPTION_KEY',
      'SECRET_HASH_KEY',
      'MIGRATION_DATABASE_URL',
    ]) {
      expect(env.has(forbidden), forbidden).toBe(false);
    }
  });

  it('the audit deliverer: its own Deployment, two (one delivers by advisory lock), the projector login and the KEK only', () => {
    const deliver = named('Deployment', 'token-authority-deliver');
    expect(deliver.spec.replicas).toBe(2);
    const container = podOf(deliver);
    expect(container.command).toEqual(['node', 'dist/cli/deliver.js']);
    const env = envOf(container);
    expect(env.get('DATABASE_URL')?.value).toContain('token_authority_projector_login');
    expect(env.has('SIGNING_KEY_ENCRYPTION_KEY')).toBe(true);
    expect(env.has('AUDIT_SINKS')).toBe(true);
    for (const forbidden of [
      'SECRET_HASH_KEY',
      'AUDIT_SIGNING_KEY',
      'AUDIT_CHECKPOINT_DIR',
      'MIGRATION_DATABASE_URL',
    ]) {
      expect(env.has(forbidden), forbidden).toBe(false);
    }
    // It serves nothing: no probe of a port, so its NetworkPolicy admits nobody (checked below).
    expect(container.readinessProbe).toBeUndefined();
  });

  it('migrations in a one-shot Job, the only holder of the owner URL', () => {
    const env = envOf(podOf(named('Job', 'token-authority-migrate')));
    expect(env.has('MIGRATION_DATABASE_URL')).toBe(true);
    expect(env.has('API_LOGIN_PASSWORD')).toBe(true);
    expect(env.has('PROJECTOR_LOGIN_PASSWORD')).toBe(true);
  });

  it('Postgres under Patroni with synchronous replication and the fleet timings', () => {
    const postgres = named('postgresql', 'token-authority-db');
    expect(postgres.spec.numberOfInstances).toBeGreaterThanOrEqual(2);
    // The fleet's timings (tools/fleet/configs.ts), which its failover drill holds to a bound.
    expect(postgres.spec.patroni).toMatchObject({
      synchronous_mode: true,
      ttl: PATRONI_TTL_SECONDS,
      loop_wait: PATRONI_LOOP_WAIT_SECONDS,
    });
    const { parameters } = postgres.spec.postgresql as { parameters: Record<string, string> };
    expect(parameters).toMatchObject({ wal_sender_timeout: '10s' });
  });

  it('a NetworkPolicy admits only Prometheus to a metrics port open on every interface, and nobody to the projector', () => {
    type Rule = { ports?: { port: string | number }[]; from?: Record<string, unknown>[] };
    const policies = docs.filter((doc) => doc.kind === 'NetworkPolicy');
    const selecting = (app: string) =>
      policies.filter(
        (policy) =>
          (policy.spec.podSelector as { matchLabels?: Record<string, string> }).matchLabels?.app ===
          app,
      );
    for (const doc of ours(['Deployment', 'StatefulSet'])) {
      const app = (doc.spec.selector as { matchLabels: { app: string } }).matchLabels.app;
      const env = envOf(podOf(doc));
      const [policy] = selecting(app);
      expect(policy, `${doc.metadata.name} has no NetworkPolicy`).toBeDefined();
      expect(policy!.spec.policyTypes).toContain('Ingress');
      const rules = (policy!.spec.ingress ?? []) as Rule[];
      if (env.get('METRICS_HOST')?.value === '0.0.0.0') {
        const metrics = rules.filter((rule) => rule.ports?.some((p) => p.port === 'metrics'));
        expect(metrics.length).toBeGreaterThan(0);
        for (const rule of metrics) {
          // An empty or absent `from` admits every source: each peer must be named.
          expect(rule.from?.length ?? 0).toBeGreaterThan(0);
          for (const peer of rule.from!)
            expect(Object.keys(peer).sort()).toEqual(['namespaceSelector', 'podSelector']);
        }
        // No rule without ports (which would open the metrics port too).
        expect(rules.every((rule) => (rule.ports?.length ?? 0) > 0)).toBe(true);
      }
      if (!podOf(doc).readinessProbe) expect(rules).toEqual([]);
    }
  });

  it('production settings load: an explicit https TOKEN_ISSUER everywhere it signs, and each forced exit inside the grace period', () => {
    for (const doc of ours(['Deployment', 'StatefulSet'])) {
      const container = podOf(doc);
      const env = Object.fromEntries(
        container.env.map((e) => [e.name, e.value ?? 'k'.repeat(43)] as const),
      );
      expect(env.TOKEN_ISSUER, doc.metadata.name).toMatch(/^https:\/\//);
      const purpose = doc.kind === 'Deployment' ? 'issuer' : 'worker';
      expect(() => loadConfig(env, purpose), doc.metadata.name).not.toThrow();
      const spec = (doc.spec.template as { spec: { terminationGracePeriodSeconds?: number } }).spec;
      const timeoutMs = Number(env.SHUTDOWN_TIMEOUT_MS ?? 10_000);
      expect(forcedExitAfterMs(timeoutMs) + 2000).toBeLessThanOrEqual(
        1000 * (spec.terminationGracePeriodSeconds ?? 30),
      );
    }
  });

  it('traces: the API, the projector and the deliverer send to the collector, which admits only them', () => {
    const workloads = ours(['Deployment', 'StatefulSet']);
    expect(workloads.map((doc) => doc.metadata.name).sort()).toEqual([
      'token-authority-api',
      'token-authority-deliver',
      'token-authority-projector',
    ]);
    for (const doc of workloads) {
      const env = envOf(podOf(doc));
      expect(env.get('OTEL_EXPORTER_OTLP_ENDPOINT')?.value, doc.metadata.name).toBe(
        'http://otel-collector:4318',
      );
      expect(env.get('OTEL_SERVICE_NAME')?.value).toBe(doc.metadata.name);
    }
    expect(named('Service', 'otel-collector').spec.ports).toEqual([
      { name: 'otlp-http', port: 4318, targetPort: 'otlp-http' },
    ]);
    const policy = named('NetworkPolicy', 'otel-collector');
    const [rule] = policy.spec.ingress as { from: { podSelector: unknown }[] }[];
    const peers = rule!.from.map((peer) => JSON.stringify(peer.podSelector));
    const selectors = workloads.map((doc) => JSON.stringify(doc.spec.selector));
    expect(peers.sort()).toEqual(selectors.sort());
  });
});
