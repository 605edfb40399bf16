import { API_NODE_FLAGS } from '../../src/config/node-flags.js';
import { forcedExitAfterMs } from '../../src/cli/process-lifecycle.js';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

interface Service {
  readonly command?: readonly string[];
  readonly ports?: readonly string[];
  readonly stop_grace_period?: string;
  readonly restart?: string;
  readonly environment?: Record<string, unknown>;
  readonly volumes?: readonly string[];
  readonly depends_on?: Record<string, { condition: string }>;
  readonly profiles?: readonly string[];
}
const composeText = readFileSync('docker-compose.yml', 'utf8');
const compose = parse(composeText, { merge: true }) as {
  services: Record<string, Service>;
};
const { api, projector, migrate, deliver } = compose.services as Record<string, Service>;

describe('docker-compose.yml: each service holds only its own secrets', () => {
  it('migrates in a one-shot job, the only service with the owner URL', () => {
    expect(migrate?.restart).toBe('no');
    expect(migrate?.command).toEqual(['node', 'dist/cli/migrate.js']);
    expect(migrate?.environment?.MIGRATION_DATABASE_URL).toEqual(expect.any(String));
    for (const service of [api, projector]) {
      expect(service?.environment).not.toHaveProperty('MIGRATION_DATABASE_URL');
      expect(service?.environment?.MIGRATE_ON_START).toBe('false');
    }
    expect(projector?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });

  it('gives the API its own login and the audit public key only, read-only, never the signing key', () => {
    expect(api?.command).toEqual(['node', ...API_NODE_FLAGS, 'dist/cli/api.js']);
    expect(String(api?.environment?.DATABASE_URL)).toContain('token_authority_api_login');
    expect(api?.environment).not.toHaveProperty('AUDIT_SIGNING_KEY');
    expect(api?.environment?.AUDIT_PUBLIC_KEY).toBe('file:/audit/audit-key.pub.json');
    expect(api?.volumes).toContain('auditpublic:/audit:ro');
    expect(projector?.volumes).toContain('auditpublic:/data/audit-public');
    expect(api?.volumes?.some((volume) => volume.startsWith('projectordata:'))).toBe(false);
  });

  it('gives the projector its own login and none of the token secrets', () => {
    expect(String(projector?.environment?.DATABASE_URL)).toContain(
      'token_authority_projector_login',
    );
    expect(projector?.environment?.SIGNING_KEY_ENCRYPTION_KEY).toBe('');
    expect(projector?.environment?.SECRET_HASH_KEY).toBe('');
  });

  it('runs the audit deliverer as its own service: the projector login, the KEK, the operator sinks, no port', () => {
    expect(deliver?.command).toEqual(['node', 'dist/cli/deliver.js']);
    expect(String(deliver?.environment?.DATABASE_URL)).toContain('token_authority_projector_login');
    // It opens webhook secrets sealed under the KEK; it signs nothing and checks no secret.
    expect(String(deliver?.environment?.SIGNING_KEY_ENCRYPTION_KEY)).toMatch(
      /^\$\{SIGNING_KEY_ENCRYPTION_KEY:\?/,
    );
    expect(deliver?.environment).toHaveProperty('AUDIT_SINKS');
    expect(deliver?.environment?.SECRET_HASH_KEY).toBe('');
    for (const forbidden of ['MIGRATION_DATABASE_URL', 'AUDIT_SIGNING_KEY', 'AUDIT_PUBLIC_KEY']) {
      expect(deliver?.environment, forbidden).not.toHaveProperty(forbidden);
    }
    expect(deliver?.environment?.MIGRATE_ON_START).toBe('false');
    expect(deliver?.ports).toBeUndefined();
    expect(deliver?.volumes).toBeUndefined();
    expect(deliver?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(deliver?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
  });
});

/** `${NAME:-default}` → default; `${NAME}` or `${NAME:?…}` → undefined; a literal as it is. */
function defaultOf(value: unknown): string | undefined {
  const text = String(value);
  const match = /^\$\{[A-Z_]+(?::-(.*))?(?::\?.*)?\}$/.exec(text);
  return match ? match[1] : text;
}

describe('docker-compose.yml and docker-compose.ci.yml: safe defaults (issue 40)', () => {
  it('gives no secret and no public URL a default: each is required (:?)', () => {
    const defaulted = [...composeText.matchAll(/\$\{([A-Z_]+):-([^}]*)\}/g)]
      .filter(([, , value]) => value !== '')
      .map(([, name]) => name!);
    expect(defaulted.filter((name) => /PASSWORD|SECRET|KEY|TOKEN_ISSUER|JWKS/.test(name))).toEqual(
      [],
    );
    const required = new Set([...composeText.matchAll(/\$\{([A-Z_]+):\?/g)].map(([, n]) => n));
    for (const name of ['POSTGRES_PASSWORD', 'TOKEN_ISSUER', 'LOGIN_JWKS_URL']) {
      expect(required.has(name), name).toBe(true);
    }
  });

  it("the header's command sets every variable the file requires", () => {
    const header = composeText.slice(0, composeText.search(/^[^#]/m));
    const assigned = new Set([...header.matchAll(/\b([A-Z][A-Z_]+)=/g)].map(([, name]) => name));
    const required = [...new Set([...composeText.matchAll(/\$\{([A-Z_]+):\?/g)].map(([, n]) => n))];
    expect(required.filter((name) => !assigned.has(name))).toEqual([]);
    expect(header).toMatch(/docker compose up --build/);
  });

  it('publishes ports on the loopback interface only', () => {
    for (const file of ['docker-compose.yml', 'docker-compose.ci.yml']) {
      const { services } = parse(readFileSync(file, 'utf8'), { merge: true }) as {
        services: Record<string, Service>;
      };
      const ports = Object.values(services).flatMap((service) => service.ports ?? []);
      expect(ports.length, file).toBeGreaterThan(0);
      expect(
        ports.filter((port) => !port.startsWith('127.0.0.1:')),
        file,
      ).toEqual([]);
    }
  });

  it('at down, stops the projector before Postgres, and its forced exit comes inside the grace period', () => {
    // Compose stops a service before those it depends on: through migrate alone, Postgres stopped
    // beside the projector and its shutdown checkpoint was lost.
    expect(projector?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(api?.depends_on?.postgres?.condition).toBe('service_healthy');
    expect(deliver?.depends_on?.postgres?.condition).toBe('service_healthy');
    for (const [name, service] of [
      ['api', api],
      ['projector', projector],
      ['deliver', deliver],
    ] as const) {
      const timeoutMs = Number(defaultOf(service?.environment?.SHUTDOWN_TIMEOUT_MS) ?? 10_000);
      const graceMs = 1000 * Number((service?.stop_grace_period ?? '10s').replace(/s$/, ''));
      // Two seconds to spare at least: the engine's SIGKILL must never race the process's own exit.
      expect(forcedExitAfterMs(timeoutMs) + 2000, name).toBeLessThanOrEqual(graceMs);
    }
  });

  it('the README and docs/operations.md no longer say compose is not run here (CI runs it on podman)', () => {
    for (const file of ['README.md', 'docs/operations.md']) {
      expect(readFileSync(file, 'utf8'), file).not.toMatch(/not run here/);
    }
  });
});

describe('docker-compose.yml: traces (issue 53)', () => {
  it('off unless a collector is named; `--profile tracing` runs one the services can be pointed at', () => {
    const collector = compose.services['otel-collector'];
    expect(collector?.profiles).toEqual(['tracing']);
    expect(collector?.ports).toBeUndefined();
    expect(collector?.volumes).toEqual([
      './deploy/otel-collector.yaml:/etc/otelcol/config.yaml:ro',
    ]);
    for (const [name, service] of Object.entries({ api, projector, deliver })) {
      expect(defaultOf(service?.environment?.OTEL_EXPORTER_OTLP_ENDPOINT), name).toBe('');
      expect(service?.environment?.OTEL_SERVICE_NAME).toBe(`token-authority-${name}`);
    }
    expect(composeText).toContain(
      'OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318 docker compose --profile tracing up',
    );
  });
});
