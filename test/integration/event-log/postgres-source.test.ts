import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { adminDatabaseUrl } from '../../support/test-database.js';

const run = promisify(execFile);

/** Which source the tests' Postgres comes from, with these settings and no container engine. */
async function sourceWith(env: Record<string, string>) {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', 'test/support/print-postgres-source.ts'],
    {
      // An engine that does not answer, whatever this machine has: the other two sources remain.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DOCKER_HOST: 'unix:///nonexistent/docker.sock',
        ...env,
      },
      timeout: 120_000,
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as { source: string; detail: string };
}

describe("the tests' Postgres, without a container engine", () => {
  it('takes DATABASE_URL when it is set', async () => {
    const url = adminDatabaseUrl();
    expect(await sourceWith({ DATABASE_URL: url })).toEqual({
      source: 'DATABASE_URL',
      detail: new URL(url).host,
    });
  });

  it('starts the embedded Postgres when nothing else is there', async () => {
    expect((await sourceWith({})).source).toBe('embedded');
  }, 120_000);

  it('refuses to fall back when TEST_POSTGRES_SOURCE=testcontainers', async () => {
    await expect(sourceWith({ TEST_POSTGRES_SOURCE: 'testcontainers' })).rejects.toThrow(
      /no container runtime answers/,
    );
  });
});
