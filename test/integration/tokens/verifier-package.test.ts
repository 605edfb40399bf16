import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/after-file.js';
import { freePort } from '../../support/code-flow.js';
import { deepImport, packedPackageProject } from '../../support/consumer-project.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 66, item 4, for packages/verifier: `npm pack` of it alone installs into an empty project,
 * whose only door is the front door, and its README's example, run there as written, accepts the
 * real service's public token and refuses a revoked one.
 */
const run = promisify(execFile);
let service: TestService;
let project: string;
let packed: string[];

beforeAll(async () => {
  ({ project, files: packed } = await packedPackageProject(
    path.resolve('packages/verifier'),
    await tempDir('verifier-package-'),
  ));
  // Its issuer is where the example reaches it: the keys and revocations are read from there.
  const port = await freePort();
  service = await startTestService({
    PORT: String(port),
    TOKEN_ISSUER: `http://127.0.0.1:${port}`,
  });
}, 480_000);

const example = async (token: string) => {
  const { stdout } = await run(process.execPath, ['example.mjs'], {
    cwd: project,
    env: {
      PATH: process.env.PATH,
      ISSUER: service.config.TOKEN_ISSUER,
      AUDIENCE,
      TOKEN: token,
    },
    timeout: 60_000,
  });
  return JSON.parse(stdout) as Record<string, unknown>;
};

describe('token-authority-verifier, packed alone (issue 66, item 4)', () => {
  it('packs its build only: no sources, no tests', () => {
    expect(packed).toContain('dist/index.js');
    expect(packed).toContain('dist/index.d.ts');
    expect(packed.filter((file) => /^(src|test)\//.test(file))).toEqual([]);
  });

  it("runs its README's example in an empty project: a public token accepted, a revoked one refused", async () => {
    const credential = await createCredentialVia(service, 'space-verifier-pkg');
    const privateToken = await privateTokenVia(service, credential);
    const bought = (await (
      await service.post(
        '/v1/issue',
        { customer_id: 'c-1', segment_id: 'vip' },
        { authorization: `Bearer ${privateToken}`, 'x-service-space-id': 'space-verifier-pkg' },
      )
    ).json()) as { token: string };
    expect(await example(bought.token)).toEqual({ kind: 'public', customer: 'c-1' });
    const revoked = await service.post('/v1/revoke', { ...credential, token: bought.token });
    expect(revoked.status).toBe(200);
    // The service's list is cached up to a second: a verifier started after it hears it.
    const revokedAt = Date.now();
    let answer = await example(bought.token);
    while (!('refused' in answer) && Date.now() - revokedAt < 8000) {
      await new Promise((resolve) => setTimeout(resolve, 300));
      answer = await example(bought.token);
    }
    expect(answer).toEqual({ refused: 401 });
    expect(await example('not-a-token')).toEqual({ refused: 401 });
  });

  it('opens one front door: deep paths into the package are closed', async () => {
    expect(await deepImport(project, 'token-authority-verifier/verifier.js')).toContain(
      'ERR_PACKAGE_PATH_NOT_EXPORTED',
    );
  });
});
