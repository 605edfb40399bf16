import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ComposeProject, runCommand } from './support/compose.js';

/** The command lines of the header's recipe that follows `heading`, as a reader would copy them. */
function recipe(heading: string): string[] {
  const header = readFileSync('docker-compose.ci.yml', 'utf8').split('\n');
  const start = header.findIndex((line) => line.startsWith(`# ${heading}`));
  const lines: string[] = [];
  for (const line of header.slice(start + 1)) {
    if (line.startsWith('#   ')) lines.push(line.slice(4));
    else if (lines.length > 0 || !line.startsWith('#')) break;
  }
  return lines;
}

describe("docker-compose.ci.yml: its header's recipe, run as written", () => {
  it('documents the same flow for compose v2 and for docker-compose 1.29', () => {
    const v2 = recipe('With compose v2');
    const v1 = recipe('With docker-compose 1.29');
    expect(v2[0]).toBe('docker compose -f docker-compose.ci.yml up -d --build --wait');
    // The same steps, but for the command's name and v1's wait loop in place of --wait.
    const asV2 = v1
      .filter((line) => !line.startsWith('timeout '))
      .map((line) => line.replaceAll('docker-compose ', 'docker compose '))
      .map((line) => line.replace('up -d --build', 'up -d --build --wait'));
    expect(asV2).toEqual(v2);
  });

  it('brings it up, waits until healthy, takes a login token by exec, issues a token and takes it down', async () => {
    const name = `taci${process.pid}`;
    const started = Date.now();
    const output = await runCommand(
      'bash',
      ['-euo', 'pipefail', '-c', recipe('With docker-compose 1.29').join('\n')],
      { env: { COMPOSE_PROJECT_NAME: name }, timeoutMs: 420_000 },
    );
    const token = JSON.parse(output.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(token).toMatchObject({ token_type: 'Bearer', expires_in: expect.any(Number) });
    expect(String(token.access_token).split('.')).toHaveLength(3);
    console.log(
      `docker-compose.ci.yml: up, token and down in ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
    expect(await new ComposeProject(name, ['docker-compose.ci.yml']).leftovers()).toEqual([]);
  });
});
