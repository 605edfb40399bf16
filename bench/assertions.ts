import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { mintDevLoginToken } from '../src/crypto/login-tokens.js';
import type { CpuGroups } from './cpu.js';
import type { createMeasurer } from './measure.js';

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLIENT_ASSERTION = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const SPACE = 'bench-space';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * `--assertions`: the private-token endpoint by the jwt-bearer grant (issue 54, RFC 7523 §2.1) and
 * by client_credentials with the same assertion authenticating the client (§2.2, `federated-jwt`). A workload's
 * credential in the bench space, a Kubernetes-shaped issuer trusted with its keys inline, and a
 * request that carries a fresh assertion each time (its `jti` is used once), signed ES256 in the
 * load generator as a kubelet would have signed it beforehand.
 */
export async function assertionRequests(
  api: string,
  dataDir: string,
  audience: string,
  /** The service's TOKEN_ISSUER: the assertions' `aud`. */
  ours: string,
): Promise<Record<'grant' | 'client', Record<string, unknown>>> {
  const login = await mintDevLoginToken({
    dataDir,
    audience: 'token-authority',
    spacesClaim: 'spaces',
    subject: 'bench',
    spaces: [SPACE],
    ttlSeconds: 3600,
  });
  const admin = {
    authorization: `Bearer ${login}`,
    'x-service-space-id': SPACE,
    'content-type': 'application/json',
  };
  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${api}${path}`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as Record<string, string>;
  };
  const { client_id: clientId } = await post('/v1/credential', {
    name: 'workload',
    description: 'bench',
  });
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'bench', alg: 'ES256' };
  await post('/v1/trusted-issuers', {
    iss: ISSUER,
    jwks: { keys: [jwk] },
    audience: ours,
    rules: [
      { id: 'bench', claims: { sub: 'system:serviceaccount:bench:workload' }, client_id: clientId },
    ],
  });
  const header = b64({ alg: 'ES256', kid: 'bench', typ: 'JWT' });
  const assertion = () => {
    const now = Math.floor(Date.now() / 1000);
    const payload = b64({
      iss: ISSUER,
      sub: 'system:serviceaccount:bench:workload',
      aud: [ours],
      iat: now,
      exp: now + 60,
      jti: randomUUID(),
      'kubernetes.io': { namespace: 'bench', serviceaccount: { name: 'workload' } },
    });
    const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
      key: privateKey,
      dsaEncoding: 'ieee-p1363',
    }).toString('base64url');
    return `${header}.${payload}.${signature}`;
  };
  const headers = { 'content-type': 'application/json', 'x-service-space-id': SPACE };
  const load = (body: () => Record<string, string>) => ({
    url: `${api}/v1/credential/token`,
    method: 'POST',
    headers,
    requests: [
      {
        method: 'POST',
        path: '/v1/credential/token',
        headers,
        setupRequest: (request: Record<string, unknown>) => ({
          ...request,
          body: JSON.stringify(body()),
        }),
      },
    ],
  });
  return {
    grant: load(() => ({ grant_type: JWT_BEARER, assertion: assertion(), audience })),
    client: load(() => ({
      grant_type: 'client_credentials',
      client_id: String(clientId),
      client_assertion_type: CLIENT_ASSERTION,
      client_assertion: assertion(),
      audience,
    })),
  };
}

/** A run as the section reads it. */
interface Run {
  readonly rps: number;
  readonly p99: number;
  readonly non2xx: number;
  readonly cpuMsPerRequest?: Readonly<Record<string, number>>;
}

const row = (name: string, run: Run, secret: Run) =>
  `| ${name} | ${Math.round(run.rps)} | ${run.p99} | ${run.non2xx} | ${(run.cpuMsPerRequest?.api ?? 0).toFixed(3)} | ${(run.rps / secret.rps).toFixed(2)} |`;

/** The report's lines for the assertion runs against the secret-authenticated one. */
export function assertionSection(asserted: Record<'grant' | 'client', Run>, secret: Run): string {
  return [
    '',
    '## Assertions of a trusted issuer (issue 54)',
    '',
    '| run | req/s | p99 ms | non-2xx | API CPU ms/token | of client_credentials |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    row('client_credentials (secret)', secret, secret),
    row("jwt-bearer (a trusted issuer's ES256 assertion, inline JWKS)", asserted.grant, secret),
    row(
      'client_credentials, federated-jwt (the same assertion as client authentication)',
      asserted.client,
      secret,
    ),
    '',
  ].join('\n');
}

/** Loads both assertion runs as the main service's private run is loaded (TOKEN_ISSUER default). */
export async function measureAssertions(
  measure: ReturnType<typeof createMeasurer>,
  client: { readonly api: string; readonly dataDir: string; readonly audience: string },
  groups: CpuGroups,
  servers: () => readonly number[],
  where: { readonly metrics: string },
) {
  const requests = await assertionRequests(
    client.api,
    client.dataDir,
    client.audience,
    'http://localhost:8080',
  );
  const run = (name: string, request: Record<string, unknown>) =>
    measure.ours(name, 'private-token-issued', request, groups, where.metrics, servers);
  return {
    grant: await run('ours: POST /v1/credential/token (jwt-bearer)', requests.grant),
    client: await run('ours: POST /v1/credential/token (federated-jwt)', requests.client),
  };
}
