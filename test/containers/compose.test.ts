import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/net/free-port.js';
import { ComposeProject } from './support/compose.js';
import { runIssuanceFlow } from './support/issuance-flow.js';

// docker-compose.yml as an operator brings it up, with a stand-in identity provider
// (stand-in-idp.compose.yml) for LOGIN_JWKS_URL, on the image CI built (TOKEN_AUTHORITY_IMAGE).
const secret = () => randomBytes(24).toString('base64url');
const idpPort = await freePort();
const project = new ComposeProject(
  `tacompose${process.pid}`,
  ['docker-compose.yml', 'test/containers/stand-in-idp.compose.yml'],
  {
    STAND_IN_IDP_SCRIPT: path.resolve('test/containers/stand-in-idp.mjs'),
    STAND_IN_IDP_PORT: String(idpPort),
    // The stand-in speaks http on the project's network, as does the issuer on loopback: named,
    // as production requires of any http URL.
    TOKEN_ISSUER: 'http://localhost:8080',
    ALLOW_HTTP_HOSTS: 'idp,localhost',
    LOGIN_JWKS_URL: 'http://idp:9000/jwks.json',
    LOGIN_ISSUER: 'http://idp:9000',
    API_LOGIN_PASSWORD: secret(),
    PROJECTOR_LOGIN_PASSWORD: secret(),
    POSTGRES_PASSWORD: secret(),
    SIGNING_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64url'),
  },
);
const baseUrl = 'http://127.0.0.1:8080';
let upToHealthyMs = 0;

describe('docker-compose.yml, brought up with docker-compose on the engine CI runs', () => {
  beforeAll(async () => {
    const started = Date.now();
    await project.run(['up', '-d']);
    await project.waitHealthy('api', 120_000);
    upToHealthyMs = Date.now() - started;
    console.log(
      `docker-compose.yml: up to a healthy API in ${(upToHealthyMs / 1000).toFixed(1)} s`,
    );
  }, 420_000);

  afterAll(async () => {
    await project.run(['down', '-v']).catch(() => undefined);
  }, 120_000);

  it('completes the migrate job, then turns the projector and the API healthy', async () => {
    const migrate = await project.inspect('migrate');
    expect(migrate.State.Running).toBe(false);
    expect(migrate.State.ExitCode).toBe(0);
    expect((await project.inspect('projector')).State.Health?.Status).toBe('healthy');
    expect((await project.inspect('api')).State.Health?.Status).toBe('healthy');
  });

  it('through port 8080, a login token from the identity provider creates a credential, then a private and a public token, and the audit trail shows all three', async () => {
    const space = 'compose-space';
    const loginToken = await (
      await fetch(`http://127.0.0.1:${idpPort}/login-token?space=${space}&role=admin`)
    ).text();
    const flow = await runIssuanceFlow({
      baseUrl,
      issuer: 'http://localhost:8080',
      loginToken,
      space,
      audience: 'storefront.api.local',
    });
    expect(flow.privateClaims).toMatchObject({ client_id: flow.clientId });
    expect(flow.publicClaims).toMatchObject({ customer_id: 'customer-42', segment_id: 'vip' });
    expect(flow.auditEventTypes).toEqual(
      expect.arrayContaining(['credential-created', 'private-token-issued', 'public-token-issued']),
    );
  });

  it('keeps the owner URL and the audit private key out of the API container', async () => {
    const api = await project.inspect('api');
    const env = api.Config.Env.map((entry) => entry.split('=')[0]);
    expect(env).not.toContain('MIGRATION_DATABASE_URL');
    expect(env).not.toContain('AUDIT_SIGNING_KEY');
    expect(api.Config.Env.join('\n')).not.toContain('postgres://token_authority:');
    // Its one window on the projector's folder holds the public half alone.
    const audit = await project.run(['exec', '-T', 'api', 'ls', '-A', '/audit']);
    expect(audit.trim().split('\n')).toEqual(['audit-key.pub.json']);
    const publicJwk = JSON.parse(
      await project.run(['exec', '-T', 'api', 'cat', '/audit/audit-key.pub.json']),
    ) as Record<string, unknown>;
    expect(publicJwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519' });
    expect(publicJwk).not.toHaveProperty('d');
  });

  it('runs the API as a non-root user on a read-only root filesystem, with /data on a volume', async () => {
    const api = await project.inspect('api');
    expect(api.HostConfig.ReadonlyRootfs).toBe(true);
    expect(api.Mounts.find((mount) => mount.Destination === '/data')?.Type).toBe('volume');
    expect((await project.run(['exec', '-T', 'api', 'id', '-u'])).trim()).toBe('1000');
    await expect(project.run(['exec', '-T', 'api', 'touch', '/app/written'])).rejects.toThrow(
      /Read-only file system/,
    );
    await project.run(['exec', '-T', 'api', 'touch', '/data/written']);
  });

  it('drains on SIGTERM within its stop grace period: requests in flight are answered, the exit is clean', async () => {
    const token = () =>
      fetch(`${baseUrl}/v1/credential/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials' }),
      }).then((response) => response.status);
    const inFlight = Array.from({ length: 20 }, token);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    await project.run(['stop', '-t', '15', 'api']);
    const stopMs = Date.now() - started;
    // A request without client authentication is a 400 or 401: any answer shows it was served.
    const answered = await Promise.allSettled(inFlight);
    expect(answered.filter((result) => result.status === 'fulfilled').length).toBe(20);
    const api = await project.inspect('api');
    expect(api.State.ExitCode).toBe(0);
    expect(stopMs).toBeLessThan(15_000);
    console.log(`docker-compose.yml: the API stopped on SIGTERM in ${stopMs} ms`);
  });

  it('down -v leaves no container, volume or network of the project', async () => {
    await project.run(['down', '-v']);
    expect(await project.leftovers()).toEqual([]);
  });
});
