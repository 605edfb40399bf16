/**
 * `npm run login-token`: a development login token (alone on stdout's last line, for scripts),
 * signed by the key in DATA_DIR, trusted only while no external login issuer is configured.
 */
import { parseCommandLine } from '#settings/command-line.js';
import { configOrExit, usageExit } from './config-exit.js';
import { mintDevLoginToken } from '../crypto/login-tokens.js';

const USAGE = `Usage: npm run login-token -- --space=<space_id> [--space=<another>] [--subject=<user>] [--ttl=<seconds>] [--role=<admin|auditor>]
Prints a development login token (alone on the last line), trusted only without an external issuer.
--role=auditor: reads only (audit, monitoring, credentials); admin (the default) also changes credentials.`;
const { values } = parseCommandLine(USAGE, {
  space: { type: 'string', multiple: true },
  subject: { type: 'string', default: 'dev-user' },
  ttl: { type: 'string', default: '3600' },
  role: { type: 'string', default: 'admin' },
});
const config = configOrExit();
if (config.LOGIN_JWKS_URL || config.LOGIN_PUBLIC_KEY) {
  usageExit('An external login issuer is configured; development login tokens would be rejected.');
}
const ttl = Number(values.ttl);
const role = values.role;
if (
  !values.space?.length ||
  !Number.isInteger(ttl) ||
  ttl <= 0 ||
  (role !== 'admin' && role !== 'auditor')
)
  usageExit(USAGE);
console.log(
  await mintDevLoginToken({
    dataDir: config.DATA_DIR,
    audience: config.LOGIN_AUDIENCE,
    spacesClaim: config.LOGIN_SPACES_CLAIM,
    subject: values.subject!,
    spaces: values.space,
    ttlSeconds: ttl,
    role: { claim: config.LOGIN_ROLE_CLAIM, value: role },
  }),
);
