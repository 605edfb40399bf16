import { pino, type Logger } from 'pino';
import { startApiServer, type ApiServer } from '../../src/cli/api-server.js';
import { connectOptions } from '../../src/cli/runtime.js';
import { connect } from '../../src/db/database.js';
import type pg from 'pg';
import { loadConfig, type Config } from '../../src/config/config.js';
import { mintDevLoginToken, type LoginRole } from '../../src/crypto/login-tokens.js';
import { loadAuditSigningKey } from '../../src/audit-trail/audit-key.js';
import { afterFile, tempDir } from './after-file.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';

/** The API on a random port over a database of this test file's own. */
export interface TestService {
  readonly baseUrl: string;
  readonly config: Config;
  readonly database: TestDatabase;
  /** Keys and other local state (a second instance shares it, as replicas share SECRET_HASH_KEY). */
  readonly dataDir: string;
  readonly api: ApiServer;
  /** The API's own pool (count its checkouts to count the API's database round trips). */
  readonly apiPool: pg.Pool;
  loginToken(spaces: readonly string[], subject?: string, role?: LoginRole): Promise<string>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export const AUDIENCE = 'storefront.test';

/** Starts the real API (same wiring as `npm start`) for a test file; stops it after the file. */
export async function startTestService(
  env: Record<string, string> = {},
  logger: Logger = pino({ level: 'silent' }),
  shared?: { readonly database: TestDatabase; readonly dataDir: string },
  overrides: Parameters<typeof startApiServer>[3] = {},
): Promise<TestService> {
  const database = shared?.database ?? (await createTestDatabase(20));
  const dataDir = shared?.dataDir ?? (await tempDir('token-authority-data-'));
  const config = loadConfig({
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: database.url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    TOKEN_AUDIENCES: `${AUDIENCE},other.test`,
    TOKEN_ISSUER: 'http://token-authority.test',
    ...env,
  });
  // The API's own pool, built as npm start builds it (timeouts included).
  const apiDatabase = connect(
    connectOptions(config, logger, {
      url: database.url,
      poolSize: 20,
      applicationName: 'test-api',
      timeouts: 'request',
    }),
  );
  // What npm start's supervisor does before the API starts: the audit key pair exists, and the
  // API reads only its public half.
  await loadAuditSigningKey(config.AUDIT_SIGNING_KEY, dataDir);
  const api = await startApiServer(config, logger, apiDatabase, overrides);
  afterFile(async () => {
    await api.close();
    await apiDatabase.close();
  });
  const baseUrl = `http://127.0.0.1:${api.port}`;
  return {
    baseUrl,
    config,
    database,
    dataDir,
    api,
    apiPool: apiDatabase.pool,
    loginToken: (spaces, subject = 'alice', role) =>
      mintDevLoginToken({
        dataDir,
        audience: config.LOGIN_AUDIENCE,
        spacesClaim: config.LOGIN_SPACES_CLAIM,
        subject,
        spaces,
        ttlSeconds: 600,
        role: { claim: config.LOGIN_ROLE_CLAIM, value: role ?? 'admin' },
      }),
    post: (route, body, headers = {}) =>
      fetch(`${baseUrl}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

/** A space admin's JSON call to the API (a login token for `spaceId`, of `subject`). */
export async function adminCall(
  service: TestService,
  spaceId: string,
  method: string,
  path: string,
  body?: unknown,
  subject?: string,
): Promise<Response> {
  return fetch(`${service.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${await service.loginToken([spaceId], subject)}`,
      'x-service-space-id': spaceId,
      'content-type': 'application/json',
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Creates a credential through the API and returns the 201 body. */
export async function createCredentialVia(
  service: TestService,
  spaceId: string,
  name = 'web shop',
): Promise<{ client_id: string; client_secret: string }> {
  const response = await service.post(
    '/v1/credential',
    { name, description: 'test client' },
    {
      authorization: `Bearer ${await service.loginToken([spaceId])}`,
      'x-service-space-id': spaceId,
    },
  );
  if (response.status !== 201)
    throw new Error(`credential creation failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as { client_id: string; client_secret: string };
}

/** Gets a private token through the API. */
export async function privateTokenVia(
  service: TestService,
  credential: { client_id: string; client_secret: string },
  audience = AUDIENCE,
): Promise<string> {
  const response = await service.post('/v1/credential/token', {
    ...credential,
    audience,
    grant_type: 'client_credentials',
  });
  if (response.status !== 200)
    throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A second API instance on the same database and keys, as a second replica would be. */
export function startSecondInstance(
  service: TestService,
  env: Record<string, string> = {},
): Promise<TestService> {
  return startTestService(env, undefined, { database: service.database, dataDir: service.dataDir });
}
