import { afterEach, describe, expect, it } from 'vitest';
import { getContainerRuntimeClient } from 'testcontainers';
import { TEST_POSTGRES_IMAGE, startTestPostgres } from '../support/postgres-source.js';
import { ComposeProject } from './support/compose.js';

// Each container check is shown to fail when what it checks is broken.
let project: ComposeProject | undefined;
afterEach(async () => {
  await project?.run(['down', '-v']).catch(() => undefined);
  project = undefined;
}, 120_000);

describe('the container checks fail when what they check is broken', () => {
  it('a compose service that never turns healthy fails the wait, with its checks and logs', async () => {
    project = new ComposeProject(`tanever${process.pid}`, [
      'docker-compose.ci.yml',
      'test/containers/never-healthy.compose.yml',
    ]);
    await project.run(['up', '-d']);
    await expect(project.waitHealthy('token-authority', 60_000)).rejects.toThrow(
      /token-authority did not turn healthy \(unhealthy/,
    );
  });

  it('the service image pointed at a database it cannot reach never turns healthy', async () => {
    project = new ComposeProject(`tanodb${process.pid}`, [
      'docker-compose.ci.yml',
      'test/containers/no-database.compose.yml',
    ]);
    await project.run(['up', '-d']);
    await expect(project.waitHealthy('token-authority', 25_000)).rejects.toThrow(
      /did not turn healthy[\s\S]*no-such-database/,
    );
  });

  it('a testcontainers Postgres that never answers fails the start within its timeout', async () => {
    // The same image with an entrypoint that only sleeps: a container that runs and never serves.
    const client = await getContainerRuntimeClient();
    const sleeper = await client.container.dockerode.createContainer({
      Image: TEST_POSTGRES_IMAGE,
      Entrypoint: ['sleep'],
      Cmd: ['3600'],
    });
    const tag = `never-answers-${process.pid}`;
    await sleeper.commit({ repo: 'localhost/token-authority/postgres', tag });
    await sleeper.remove();
    const image = `localhost/token-authority/postgres:${tag}`;
    const started = Date.now();
    try {
      await expect(startTestPostgres({ image, startupMs: 15_000 })).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      await client.container.dockerode
        .getImage(image)
        .remove({ force: true })
        .catch(() => undefined);
    }
  });
});
