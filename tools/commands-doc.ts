/**
 * `npm run docs:commands`: writes docs/commands.md from package.json's scripts and the one line
 * said of each here (SCRIPTS). A script without a line, or a line without a script, fails it; the
 * npm script then runs prettier on it, as test/unit/commands-doc.test.ts does on the text it compares.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

type Group = 'Run' | 'Operate' | 'Audit and proofs' | 'Develop' | 'Test' | 'Drills' | 'Benchmarks';

interface ScriptInfo {
  readonly group: Group;
  /** Its arguments as `npm run <name> -- …` takes them; none: run bare. */
  readonly args?: string;
  readonly what: string;
}

/** What each script of package.json is for: the doc's only hand-written text. */
export const SCRIPTS: Readonly<Record<string, ScriptInfo>> = {
  start: {
    group: 'Run',
    what: 'the whole service: Postgres if embedded, API, projector, deliverer',
  },
  api: { group: 'Run', what: 'the API alone (as in docker-compose)' },
  projector: {
    group: 'Run',
    args: '[--rebuild=<audit|rates|usage>]',
    what: 'the projector alone; `--rebuild` empties a view and replays it from the first event',
  },
  deliver: { group: 'Run', what: 'the audit deliverer alone (sinks, Shared Signals streams)' },
  migrate: {
    group: 'Run',
    what: 'apply pending migrations (also done at every start; safe concurrently)',
  },
  'consent-app': { group: 'Run', what: 'the example storefront consent page, beside `npm start`' },
  'login-token': {
    group: 'Operate',
    args: '--space=<id> [--subject=<user>] [--ttl=<s>] [--role=<admin|auditor>]',
    what: 'print a development login token',
  },
  'verify-token': {
    group: 'Operate',
    args: '[--jwks=<url>] [--audience=<aud>] <token>',
    what: 'verify an access token against the JWKS endpoint',
  },
  'projector-health': {
    group: 'Operate',
    what: 'exit 0 when a projector leads and no view or the sealer is over 60 s behind',
  },
  'rotate-signing-key': {
    group: 'Operate',
    args: '[--activate-in=<s, default 360>]',
    what: 'add a signing key: published at once, signs after `--activate-in`',
  },
  'retire-signing-key': {
    group: 'Operate',
    args: '--kid=<kid>',
    what: 'withdraw a compromised signing key at once',
  },
  'rewrap-signing-keys': {
    group: 'Operate',
    args: '--from=<old key or file:path>',
    what: 'reseal the signing keys under the `SIGNING_KEY_ENCRYPTION_KEY` now set',
  },
  archive: {
    group: 'Operate',
    args: '--before=<ISO date> [--dir=<folder>]',
    what: 'as the owner: archive whole log partitions older than the date, verified, then drop them',
  },
  'verify-chain': {
    group: 'Audit and proofs',
    what: "recompute the log's Merkle trees (archive included) and hold them to every signed head",
  },
  'verify-export': {
    group: 'Audit and proofs',
    args: '(--key=<audit-key.jwk> | --no-signature-check) [--checkpoint-dir=<dir>] <file>',
    what: 'verify an audit export offline ([compliance.md](compliance.md))',
  },
  'verify-proof': {
    group: 'Audit and proofs',
    args: '<answer.json> --key=<vkey> [--old= --new=] [--witness=<vkey>] [--min-cosignatures=N]',
    what: 'check a saved inclusion or consistency proof, or a token receipt, offline',
  },
  'note-key': {
    group: 'Audit and proofs',
    args: '--key=<audit public JWK> --issuer=<issuer> (--space=<id> | --log)',
    what: "derive a tree's note verifier key offline from the audit key's public half",
  },
  witness: {
    group: 'Audit and proofs',
    args: '--name=<name> --log=<origin>=<vkey>',
    what: 'run an independent witness that cosigns only consistent tree heads',
  },
  'docs:config': { group: 'Develop', what: 'write docs/configuration.md from the config schema' },
  'docs:commands': {
    group: 'Develop',
    what: 'write this file from package.json and tools/commands-doc.ts',
  },
  'docs:events': { group: 'Develop', what: 'write docs/events.md from the event catalog' },
  typecheck: { group: 'Develop', what: 'tsc, no output' },
  lint: { group: 'Develop', what: 'eslint, layer rules included' },
  format: { group: 'Develop', what: 'prettier, written' },
  'format:check': { group: 'Develop', what: 'prettier, checked' },
  check: {
    group: 'Develop',
    what: 'typecheck, lint and format check (CI runs these and `npm test`)',
  },
  build: { group: 'Develop', what: 'compile the packages and the service into dist/' },
  prepack: { group: 'Develop', what: 'build before `npm pack`' },
  'pack:testcontainers': {
    group: 'Develop',
    what: 'pack the testcontainers module to the root ([testing.md](testing.md))',
  },
  test: { group: 'Test', what: 'unit, package and integration tests (what CI runs)' },
  'test:unit': { group: 'Test', what: 'unit tests only' },
  'test:fleet': { group: 'Test', what: 'the failover drill on a fleet ([fleet.md](fleet.md))' },
  'test:process': {
    group: 'Test',
    what: 'integration tests that start, kill or pack whole processes',
  },
  'test:hsm': { group: 'Test', what: 'the PKCS#11 tests against SoftHSM' },
  'test:partitions': { group: 'Test', what: 'the partition drill in network namespaces (root)' },
  'test:containers': { group: 'Test', what: 'the compose and image tests (podman or docker)' },
  'test:packages': {
    group: 'Test',
    what: "each package's own tests (`npm test -w packages/<name>`: one)",
  },
  chaos: {
    group: 'Drills',
    args: '[--cycles=<n>] [--phase-ms=<ms>] [--concurrency=<n>]',
    what: 'kill API, projector and Postgres in turns under load, then verify the log',
  },
  soak: {
    group: 'Drills',
    args: '[--minutes=<n>] [--concurrency=<n>]',
    what: 'steady load: memory per process, served = appended, lag',
  },
  fleet: {
    group: 'Drills',
    args: 'up [--api-replicas=N] [--pg-nodes=M] | status | down',
    what: 'a reference deployment on this machine: etcd, Patroni, HAProxy ([fleet.md](fleet.md))',
  },
  bench: {
    group: 'Benchmarks',
    args: '[--duration=<s>] [--connections=<n>] [--traces=0.01,1]',
    what: 'issuance against node-oidc-provider ([benchmarks.md](benchmarks.md))',
  },
  'bench:fleet': {
    group: 'Benchmarks',
    what: 'issuance through the fleet with 1, 2, 3 API replicas',
  },
  'bench:verify': { group: 'Benchmarks', what: 'CPU per verification with token-authority/verify' },
  'bench:growth': {
    group: 'Benchmarks',
    args: '--tokens=<n> [--env=KEY=VALUE]...',
    what: 'database bytes per token, table by table ([capacity.md](capacity.md))',
  },
  'bench:log-size': {
    group: 'Benchmarks',
    args: '[--sizes=<n,n>] [--bulk=<n>] [--duration=<s>]',
    what: 'how catch-up, issuance and proofs grow with the log',
  },
  'bench:proofs': {
    group: 'Benchmarks',
    args: '[--events=<n>]',
    what: 'sealer CPU and proof sizes',
  },
  'bench:tiles': {
    group: 'Benchmarks',
    args: '[--events=<n>] [--monitors=<n>]',
    what: 'what the public log tiles cost',
  },
  'bench:projector': {
    group: 'Benchmarks',
    args: '[--events=<n>] [--spaces=<n>]',
    what: "the projector's CPU per token from position zero",
  },
};

const GROUPS: readonly Group[] = [
  'Run',
  'Operate',
  'Audit and proofs',
  'Develop',
  'Test',
  'Drills',
  'Benchmarks',
];

/** Scripts of package.json with no line in SCRIPTS, and lines with no script. */
export function undescribedScripts(scripts: Readonly<Record<string, string>>): {
  missing: string[];
  extra: string[];
} {
  return {
    missing: Object.keys(scripts).filter((name) => !SCRIPTS[name]?.what.trim()),
    extra: Object.keys(SCRIPTS).filter((name) => !(name in scripts)),
  };
}

function command(name: string, args: string | undefined): string {
  const run = name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`;
  return `\`${run}${args ? ` -- ${args}` : ''}\``;
}

/** docs/commands.md, from the scripts given (package.json's); throws on an undescribed one. */
export function commandsDoc(scripts: Readonly<Record<string, string>>): string {
  const { missing, extra } = undescribedScripts(scripts);
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(
      `tools/commands-doc.ts SCRIPTS: describe ${missing.join(', ') || '-'}; remove ${extra.join(', ') || '-'}`,
    );
  }
  const sections = GROUPS.map((group) => {
    const items = Object.keys(scripts)
      .filter((name) => SCRIPTS[name]!.group === group)
      .map((name) => `- ${command(name, SCRIPTS[name]!.args)}: ${SCRIPTS[name]!.what}`);
    return `## ${group}\n\n${items.join('\n')}\n`;
  });
  return [
    '# Commands',
    '',
    '<!-- Generated by `npm run docs:commands` from package.json and tools/commands-doc.ts. -->',
    '',
    'Options take `--name=<value>` or `--name <value>`; use the `=` form in scripts: it also works',
    'for an id that begins with `-` (base64url ids do, one in 32). A value after a lone `--` is',
    'positional. Settings (environment variables) are in [configuration.md](configuration.md).',
    '',
    ...sections,
  ].join('\n');
}

/** package.json's scripts. */
export function packageScripts(): Record<string, string> {
  const file = fileURLToPath(new URL('../package.json', import.meta.url));
  return (JSON.parse(readFileSync(file, 'utf8')) as { scripts: Record<string, string> }).scripts;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = fileURLToPath(new URL('../docs/commands.md', import.meta.url));
  writeFileSync(target, commandsDoc(packageScripts()));
  process.stdout.write(`wrote ${target}\n`);
}
