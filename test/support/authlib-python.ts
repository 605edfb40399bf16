import { spawnSync } from 'node:child_process';

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
