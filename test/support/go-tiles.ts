import { execFile, spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Go with Debian's golang.org/x/mod (golang-golang-x-mod-dev), in GOPATH mode so nothing is
 * downloaded; pure Go (no C compiler). None: an error saying what to install, never a skip.
 */
function goEnvironment(): NodeJS.ProcessEnv {
  const env = {
    ...process.env,
    GO111MODULE: 'off',
    GOPATH: process.env.GOPATH_X_MOD ?? '/usr/share/gocode',
    CGO_ENABLED: '0',
    GOFLAGS: '',
  };
  const probe = spawnSync('go', ['list', 'golang.org/x/mod/sumdb/tlog'], { env, stdio: 'ignore' });
  if (probe.status !== 0) {
    throw new Error(
      'no Go with golang.org/x/mod: apt-get install -y golang-go golang-golang-x-mod-dev ' +
        '(Debian; .ci/run does it), or set GOPATH_X_MOD to a GOPATH holding golang.org/x/mod',
    );
  }
  return env;
}

/** Builds test/interop/go-tiles once: the monitor that reads the log's tiles with Go's tlog. */
export async function buildGoTiles(): Promise<
  (args: string[]) => Promise<{ status: number; out: Record<string, unknown> }>
> {
  const env = goEnvironment();
  const binary = path.join(await mkdtemp(path.join(tmpdir(), 'go-tiles-')), 'go-tiles');
  await run('go', ['build', '-o', binary, '.'], {
    cwd: path.resolve('test/interop/go-tiles'),
    env: { ...env, GOCACHE: path.join(path.dirname(binary), 'cache') },
    timeout: 240_000,
  });
  return async (args) => {
    const done = await run(binary, args, { timeout: 60_000 }).then(
      (ok) => ({ status: 0, stdout: ok.stdout }),
      (error: { code?: number; stdout?: string }) => ({
        status: typeof error.code === 'number' ? error.code : -1,
        stdout: error.stdout ?? '',
      }),
    );
    return { status: done.status, out: JSON.parse(done.stdout || '{}') as Record<string, unknown> };
  };
}
