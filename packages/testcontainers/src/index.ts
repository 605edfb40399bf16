/**
 * `token-authority-testcontainers` (packages/testcontainers): the service's image and a Postgres
 * on one container network, for other projects' integration tests, as Keycloak's testcontainers
 * module is for Keycloak. Needs `testcontainers` (its one dependency) and a container engine;
 * imports nothing of the server, so its users install none of it. See docs/testing.md.
 */
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import {
  Network,
  Wait,
  getContainerRuntimeClient,
  type StartedNetwork,
  type StartedTestContainer,
} from 'testcontainers';
import { PublishedContainer, publishAddress } from './published-ports.js';

/** A dashboard user's role, as the login token's role claim carries it. */
export type LoginRole = 'admin' | 'auditor';

/** A running service and its Postgres. */
export interface StartedTokenAuthority {
  /** Base URL of the API on the host, e.g. `http://localhost:41873`. */
  readonly url: string;
  /** The `iss` of its tokens and the OAuth discovery issuer (the same as `url`). */
  readonly issuer: string;
  /** Where a resource server takes the keys that verify its tokens. */
  readonly jwksUrl: string;
  /** Audiences it issues tokens for. */
  readonly audiences: readonly string[];
  /** Its Postgres, as the owner, from the host: the event log and the views, for assertions. */
  readonly databaseUrl: string;
  /** A login token for `space`, as a dashboard user's (the service trusts its development key). */
  loginToken(space: string, options?: { role?: LoginRole; subject?: string }): Promise<string>;
  /** The service's container, for logs or exec. */
  readonly container: StartedTestContainer;
  /** Stops both containers and removes their network. */
  stop(): Promise<void>;
}

const POSTGRES_READY = /database system is ready to accept connections/;

/** A port free on this host now: the issuer's URL must be known before the service starts. */
function freeHostPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * token-authority in a container (the image built from this project's Dockerfile), on a Postgres
 * container of its own. Defaults: image `token-authority:local` (or TOKEN_AUTHORITY_IMAGE),
 * Postgres `postgres:17-alpine`, audience `storefront.test`.
 *
 * ```js
 * const authority = await new TokenAuthorityContainer().start();
 * const login = await authority.loginToken('my-space');
 * ```
 */
export class TokenAuthorityContainer {
  private postgresImage = 'postgres:17-alpine';
  private audiences: readonly string[] = ['storefront.test'];
  private environment: Readonly<Record<string, string>> = {};
  private startupTimeoutMs = 120_000;

  constructor(
    private readonly image = process.env.TOKEN_AUTHORITY_IMAGE || 'token-authority:local',
  ) {}

  /** Another Postgres image honouring the official one's variables (15 or newer). */
  withPostgresImage(image: string): this {
    this.postgresImage = image;
    return this;
  }

  /** The audiences tokens may be issued for. */
  withAudiences(...audiences: string[]): this {
    this.audiences = audiences;
    return this;
  }

  /** Any other setting of the README's table, e.g. `{ PUBLIC_TOKEN_TTL_SECONDS: '60' }`. */
  withEnvironment(environment: Readonly<Record<string, string>>): this {
    this.environment = { ...this.environment, ...environment };
    return this;
  }

  /** How long each container may take to turn ready (default two minutes). */
  withStartupTimeout(ms: number): this {
    this.startupTimeoutMs = ms;
    return this;
  }

  /** Starts Postgres, then the service (migrations, API and projector), ready when it resolves. */
  async start(): Promise<StartedTokenAuthority> {
    const host = (await getContainerRuntimeClient()).info.containerRuntime.host;
    // Never on every interface when the engine is here: the service trusts the development key.
    const hostIp = publishAddress(host);
    const network = await new Network().start();
    const password = randomBytes(12).toString('hex');
    let postgres: StartedTestContainer | undefined;
    try {
      postgres = await new PublishedContainer(this.postgresImage)
        .publishedOn(hostIp)
        .withNetwork(network)
        .withNetworkAliases('postgres')
        .withEnvironment({
          POSTGRES_USER: 'owner',
          POSTGRES_PASSWORD: password,
          POSTGRES_DB: 'token_authority',
        })
        // The log, not a health check: engines without systemd never run one. A first start
        // logs "ready" twice, the init server's and the real one's.
        // Published too (podman reports an image's EXPOSE as a binding testcontainers waits for),
        // which lets a test read the event log itself: `databaseUrl`.
        .withExposedPorts(5432)
        .withWaitStrategy(Wait.forLogMessage(POSTGRES_READY, 2))
        .withStartupTimeout(this.startupTimeoutMs)
        .start();
      const port = await freeHostPort();
      const url = `http://${host}:${port}`;
      const container = await new PublishedContainer(this.image)
        .publishedOn(hostIp)
        .withNetwork(network)
        .withEnvironment({
          NODE_ENV: 'test',
          LOG_LEVEL: 'warn',
          MIGRATION_DATABASE_URL: `postgres://owner:${password}@postgres:5432/token_authority`,
          TOKEN_ISSUER: url,
          TOKEN_AUDIENCES: this.audiences.join(','),
          ...this.environment,
        })
        .withExposedPorts({ container: 8080, host: port })
        .withWaitStrategy(Wait.forHttp('/readyz', 8080).forStatusCode(200))
        .withStartupTimeout(this.startupTimeoutMs)
        .start();
      const databaseUrl = `postgres://owner:${password}@${host}:${postgres.getMappedPort(5432)}/token_authority`;
      return started(container, postgres, network, { url, databaseUrl, audiences: this.audiences });
    } catch (error) {
      await postgres?.stop().catch(() => undefined);
      await network.stop().catch(() => undefined);
      throw error;
    }
  }
}

function started(
  container: StartedTestContainer,
  postgres: StartedTestContainer,
  network: StartedNetwork,
  where: { url: string; databaseUrl: string; audiences: readonly string[] },
): StartedTokenAuthority {
  const { url, databaseUrl, audiences } = where;
  return {
    url,
    databaseUrl,
    issuer: url,
    jwksUrl: `${url}/.well-known/jwks.json`,
    audiences,
    container,
    async loginToken(space, options = {}) {
      const { exitCode, stdout, output } = await container.exec([
        'node',
        'dist/cli/login-token.js',
        `--space=${space}`,
        `--role=${options.role ?? 'admin'}`,
        `--subject=${options.subject ?? 'test-user'}`,
      ]);
      const token = stdout.trim().split('\n').at(-1) ?? '';
      if (exitCode !== 0 || token.split('.').length !== 3) {
        throw new Error(`login-token in the container failed (exit ${exitCode}): ${output}`);
      }
      return token;
    },
    async stop() {
      await container.stop();
      await postgres.stop();
      await network.stop();
    },
  };
}
