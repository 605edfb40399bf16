import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { httpAllowedUrls } from '../../src/config/production-urls.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 8080,
      EMBEDDED_PG_PORT: 5433,
      TOKEN_AUDIENCES: ['storefront.api.local'],
      PRIVATE_TOKEN_TTL_SECONDS: 3600,
      PUBLIC_TOKEN_TTL_SECONDS: 900,
      LOGIN_SPACES_CLAIM: 'spaces',
      RUN_PROJECTOR: true,
    });
    expect(config.DATABASE_URL).toBeUndefined();
  });

  it('names every bad variable and what it expects', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        EMBEDDED_PG_PORT: '40000',
        DATABASE_URL: 'mysql://x',
        TOKEN_AUDIENCES: ' , ',
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    expect(problems).toMatch(/^PORT: .*"eighty"/m);
    expect(problems).toMatch(/^EMBEDDED_PG_PORT: embedded Postgres needs a port below 32768/m);
    expect(problems).toMatch(/^DATABASE_URL: expected a postgres:\/\/ or postgresql:\/\/ URL/m);
    expect(problems).toMatch(/^TOKEN_AUDIENCES: /m);
  });

  it('treats empty values as unset and parses lists and flags', () => {
    const config = loadConfig({
      PORT: '',
      TOKEN_AUDIENCES: 'a.example, b.example',
      RUN_PROJECTOR: 'false',
    });
    expect(config.PORT).toBe(8080);
    expect(config.TOKEN_AUDIENCES).toEqual(['a.example', 'b.example']);
    expect(config.RUN_PROJECTOR).toBe(false);
  });

  it('requires LOGIN_ISSUER with an external login key', () => {
    expect(() => loadConfig({ LOGIN_JWKS_URL: 'https://idp.example/jwks' })).toThrow(
      /LOGIN_ISSUER/,
    );
  });

  it('rejects a short SECRET_HASH_KEY', () => {
    expect(() => loadConfig({ SECRET_HASH_KEY: 'short' })).toThrow(
      /SECRET_HASH_KEY: expected at least 32 bytes/,
    );
  });

  it('refuses token lifetimes over one day, naming the variable', () => {
    expect(() => loadConfig({ PRIVATE_TOKEN_TTL_SECONDS: '86401' })).toThrow(
      /PRIVATE_TOKEN_TTL_SECONDS: at most 86400/,
    );
    expect(() => loadConfig({ PUBLIC_TOKEN_TTL_SECONDS: '90000' })).toThrow(
      /PUBLIC_TOKEN_TTL_SECONDS: at most 86400/,
    );
    expect(loadConfig({ PRIVATE_TOKEN_TTL_SECONDS: '86400' }).PRIVATE_TOKEN_TTL_SECONDS).toBe(
      86_400,
    );
  });

  it('refuses NODE_ENV=production without an external login issuer, naming the variables', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      /LOGIN_JWKS_URL, LOGIN_PUBLIC_KEY/,
    );
    expect(
      loadConfig({
        NODE_ENV: 'production',
        TOKEN_ISSUER: 'https://tokens.example',
        LOGIN_JWKS_URL: 'https://idp.example/jwks.json',
        LOGIN_ISSUER: 'https://idp.example',
        SIGNING_KEY_ENCRYPTION_KEY: 'k'.repeat(43),
      }).NODE_ENV,
    ).toBe('production');
  });

  it('refuses NODE_ENV=production without a key-encryption key for the signing keys', () => {
    expect(() =>
      loadConfig({
        NODE_ENV: 'production',
        TOKEN_ISSUER: 'https://tokens.example',
        LOGIN_JWKS_URL: 'https://idp.example/jwks.json',
        LOGIN_ISSUER: 'https://idp.example',
      }),
    ).toThrow(/SIGNING_KEY_ENCRYPTION_KEY/);
  });

  it('does not make a production worker (projector, migrations) hold the issuer-only secrets', () => {
    // docker-compose.yml gives the projector neither key; it must still start in production.
    const worker = loadConfig({ NODE_ENV: 'production', SIGNING_KEY_ENCRYPTION_KEY: '' }, 'worker');
    expect(worker.NODE_ENV).toBe('production');
    expect(worker.SIGNING_KEY_ENCRYPTION_KEY).toBeUndefined();
    expect(() => loadConfig({ NODE_ENV: 'production' }, 'issuer')).toThrow(/LOGIN_JWKS_URL/);
  });

  it('puts /metrics on its own loopback listener by default, never on the API port', () => {
    const config = loadConfig({});
    expect(config.METRICS_PORT).toBe(9464);
    expect(config.METRICS_HOST).toBe('127.0.0.1');
    expect(config.METRICS_PORT).not.toBe(config.PORT);
  });

  it('never echoes the value of a secret setting in a config error', () => {
    const secret = 'not!base64url-secret-value-that-must-not-leak';
    const message = (() => {
      try {
        loadConfig({ SECRET_HASH_KEY: secret, DATABASE_POOL_SIZE: 'many' });
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/SECRET_HASH_KEY/);
    expect(message).not.toContain(secret);
    // Settings that are not secrets still say what they got.
    expect(message).toContain('(got "many")');
  });
});

describe('production URLs (issue 40, item 9)', () => {
  const production = {
    NODE_ENV: 'production',
    TOKEN_ISSUER: 'https://tokens.example',
    LOGIN_JWKS_URL: 'https://idp.example/jwks.json',
    LOGIN_ISSUER: 'https://idp.example',
    SIGNING_KEY_ENCRYPTION_KEY: 'k'.repeat(43),
  };
  const problemsOf = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      return [...(error as ConfigError).problems];
    }
  };

  it('refuses the default issuer: TOKEN_ISSUER must be set explicitly', () => {
    const { TOKEN_ISSUER: _unset, ...rest } = production;
    expect(problemsOf(rest)).toEqual([expect.stringMatching(/^TOKEN_ISSUER: .*required/)]);
    expect(problemsOf({ ...rest, TOKEN_ISSUER: '' })).toEqual([
      expect.stringMatching(/^TOKEN_ISSUER: .*required/),
    ]);
    expect(problemsOf(production)).toEqual([]);
  });

  it('refuses an http issuer or JWKS URL, naming the setting that would allow it', () => {
    expect(problemsOf({ ...production, TOKEN_ISSUER: 'http://tokens.example' })).toEqual([
      expect.stringMatching(/^TOKEN_ISSUER: .*https:\/\/ URL .*ALLOW_HTTP_HOSTS/),
    ]);
    expect(problemsOf({ ...production, LOGIN_JWKS_URL: 'http://idp.example/jwks.json' })).toEqual([
      expect.stringMatching(/^LOGIN_JWKS_URL: .*https:\/\/ URL/),
    ]);
    // What compose used to default to.
    expect(problemsOf({ ...production, TOKEN_ISSUER: 'http://localhost:8080' })).toHaveLength(1);
  });

  it('allows http to the hosts ALLOW_HTTP_HOSTS names, and only to them', () => {
    const env = {
      ...production,
      TOKEN_ISSUER: 'http://tokens.internal:8080',
      LOGIN_JWKS_URL: 'http://idp.internal/jwks.json',
      ALLOW_HTTP_HOSTS: 'idp.internal, tokens.internal',
    };
    const config = loadConfig(env);
    expect(httpAllowedUrls(config)).toEqual([
      'TOKEN_ISSUER=http://tokens.internal:8080',
      'LOGIN_JWKS_URL=http://idp.internal',
    ]);
    expect(problemsOf({ ...env, ALLOW_HTTP_HOSTS: 'idp.internal' })).toEqual([
      expect.stringMatching(/^TOKEN_ISSUER: .*https/),
    ]);
    expect(problemsOf({ ...env, ALLOW_HTTP_HOSTS: '*' })).toContainEqual(
      expect.stringMatching(/^ALLOW_HTTP_HOSTS: .*every host/),
    );
    expect(httpAllowedUrls(loadConfig(production))).toEqual([]);
  });

  it('reads SINK_ALLOW_TARGETS as host names, addresses and CIDR blocks, never one meaning every address (issue 51, item 5)', () => {
    expect(
      loadConfig({ SINK_ALLOW_TARGETS: 'siem.internal, 10.20.0.0/16,fd12::/48,192.0.2.7' })
        .SINK_ALLOW_TARGETS,
    ).toEqual(['siem.internal', '10.20.0.0/16', 'fd12::/48', '192.0.2.7']);
    for (const value of ['0.0.0.0/0', '::/0', '*', '10.0.0.0/33', 'siem.internal/8', 'a b']) {
      expect(() => loadConfig({ SINK_ALLOW_TARGETS: value }), value).toThrow(/SINK_ALLOW_TARGETS/);
    }
  });

  it('leaves development, tests and production workers as they were', () => {
    expect(loadConfig({}).TOKEN_ISSUER).toBe('http://localhost:8080');
    expect(
      loadConfig({ NODE_ENV: 'test', LOGIN_JWKS_URL: 'http://x/j', LOGIN_ISSUER: 'x' }),
    ).toBeTruthy();
    expect(loadConfig({ NODE_ENV: 'production' }, 'worker').NODE_ENV).toBe('production');
  });
});

describe('keys given in settings (issue 32)', () => {
  it('a 32-byte key reads the same in either base64 alphabet, padded as openssl prints it or not', async () => {
    const { key32 } = await import('../../src/config/setting-value.js');
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i * 3));
    const standard = bytes.toString('base64');
    expect(standard).toMatch(/[+/].*=$/);
    expect(key32('K', standard)).toEqual(bytes);
    expect(key32('K', bytes.toString('base64url'))).toEqual(bytes);
    expect(() => key32('K', standard.slice(2))).toThrow(
      /^Invalid configuration: K: expected 32 bytes/,
    );
  });

  it('file: names a file; a missing one is named by its setting, never by its value', async () => {
    const { settingText } = await import('../../src/config/setting-value.js');
    const error = await settingText('AUDIT_SIGNING_KEY', 'file:/nonexistent/s3cr3t').catch(
      (caught: Error) => caught,
    );
    expect(String(error)).toMatch(
      /AUDIT_SIGNING_KEY: the file it names could not be read \(ENOENT\)/,
    );
    expect(String(error)).not.toContain('s3cr3t');
  });
});
