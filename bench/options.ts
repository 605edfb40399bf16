/** `npm run bench`'s command line: its usage, its options and what they make. */
import { parseCommandLine } from '#settings/command-line.js';
import { integer } from '#settings/setting-types.js';
import type { LoadPlan } from './load.js';
import { tracedRatios } from './traces.js';
import { comparedSetting } from './compare.js';

const USAGE = `Usage: npm run bench -- [--duration=<s>] [--connections=<n>] [--warmup=<s>]
       [--log-level=<level>] [--no-projector] [--profile] [--statements] [--scopes] [--sinks]
       [--traces=<ratio,...>] [--assertions] [--status-claim] [--compare=<NAME=a,b,...>] [--rounds=<n>] [--no-write]
Loads the Koa ceiling, node-oidc-provider (in memory, durable) and our two issuance endpoints, one at a time, and
writes docs/benchmarks.md (unless --no-write). --scopes: the service runs with
deploy/scope-catalog.json and every token carries three scopes. --sinks: the service delivers
its audit trail to two operator sinks (AUDIT_SINKS), a webhook receiver answering 200 and a dead
port. --traces=0.01,1: the private endpoint again on a service sending traces sampled at each
ratio to a local collector, as ratios to tracing off. --assertions: jwt-bearer, to client_credentials.
--status-claim: the private endpoint on twin services with and without the status claim, in turns.
--compare=API_WORKERS=1,2: the private endpoint on twin services differing only in that setting,
each value in turn (the order reversed every other round), --rounds rounds (three by default).`;

export const { values } = parseCommandLine(USAGE, {
  duration: { type: 'string', default: '10' },
  connections: { type: 'string', default: '50' },
  warmup: { type: 'string', default: '3' },
  'no-write': { type: 'boolean', default: false },
  'log-level': { type: 'string', default: 'info' },
  profile: { type: 'boolean', default: false },
  statements: { type: 'boolean', default: false },
  'no-projector': { type: 'boolean', default: false },
  scopes: { type: 'boolean', default: false },
  sinks: { type: 'boolean', default: false },
  traces: { type: 'string' },
  assertions: { type: 'boolean', default: false },
  'status-claim': { type: 'boolean', default: false },
  compare: { type: 'string' },
  rounds: { type: 'string', default: '3' },
});
export const compared = comparedSetting(values.compare);
/** --compare's rounds, checked before anything is measured. */
const roundsRead = integer(1).safeParse(values.rounds);
if (!roundsRead.success) throw new Error(`--rounds=${values.rounds}: a whole number ≥ 1`);
export const rounds = roundsRead.data;
export const traceRatios = tracedRatios(values.traces);
// Three public scopes of the development catalog: private and public tokens carry all three.
export const SCOPES = values.scopes ? ['products:read', 'cart:write', 'checkout:write'] : undefined;
export const plan: LoadPlan = {
  durationSeconds: Number(values.duration),
  connections: Number(values.connections),
  warmupSeconds: Number(values.warmup),
};
