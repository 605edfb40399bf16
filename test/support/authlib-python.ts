import { execFile, spawnSync } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { AUDIENCE } from './test-service.js';

/**
 * A Python that imports authlib and requests, for the interop test: PYTHON if set, then Debian's
 * own interpreter (where `apt-get install python3-authlib` puts it; a pyenv or venv `python3`
 * first on PATH does not see Debian's packages), then whatever `python3` is. None: an error
 * saying what to install. Never a skip: a test that did not run is not a test that passed.
 */
export function authlibPython(): string {
  const candidates = [process.env.PYTHON, '/usr/bin/python3', 'python3'].filter(
    (candidate): candidate is string => candidate !== undefined && candidate !== '',
  );
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', 'import authlib, requests'], { stdio: 'ignore' });
    if (probe.status === 0) return python;
  }
  throw new Error(
    `no Python with authlib and requests (tried ${candidates.join(', ')}): ` +
      'apt-get install -y python3-authlib python3-requests (Debian; .ci/run does it), ' +
      'or set PYTHON to an interpreter that has them',
  );
}

const run = promisify(execFile);

/**
 * Runs one of test/interop's authlib clients against the service at `baseUrl`, as `credential`
 * for the test audience, with `args` beside the endpoints; `environment` passes what no command line should show.
 * Its stdout is one JSON object; exit status 2 is an OAuth error it printed, any other failure
 * is thrown. Asynchronous: the service answering it runs in this very process.
 */
export async function runAuthlibClient(
  script: string,
  baseUrl: string,
  credential: { client_id: string; client_secret: string },
  args: string[],
  environment: Record<string, string> = {},
): Promise<unknown> {
  const argv = [
    path.join(import.meta.dirname, '../interop', script),
    `--token-endpoint=${baseUrl}/v1/credential/token`,
    `--introspection-endpoint=${baseUrl}/v1/introspect`,
    `--client-id=${credential.client_id}`,
    `--audience=${AUDIENCE}`,
    ...args,
  ];
  const env = {
    ...process.env,
    ...environment,
    TOKEN_AUTHORITY_CLIENT_SECRET: credential.client_secret,
    // The clients import authlib_session.py: no __pycache__ left in test/interop.
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const { stdout } = await run(authlibPython(), argv, { env, timeout: 30_000 }).catch(
    (error: { code?: number; stdout?: string; stderr?: string }) => {
      if (error.code === 2 && error.stdout) return { stdout: error.stdout };
      throw new Error(`authlib client failed (${error.code}): ${error.stderr ?? String(error)}`);
    },
  );
  return JSON.parse(stdout);
}
