/**
 * `npm run retire-signing-key -- --kid=<kid>`: withdraws a compromised signing key at once. It
 * leaves the JWKS and its tokens stop verifying (/v1/issue, introspection) on every API replica
 * within SIGNING_KEY_REFRESH_MS; if it was the only active key, a new one signs at once.
 */
import { retireSigningKey } from '../commands/signing-key/change-keys.js';
import { operatorActor, withSigningKeys } from './operator.js';
import { parseCommandLine } from '#settings/command-line.js';
import { configOrExit, usageExit } from './config-exit.js';

const USAGE = `Usage: npm run retire-signing-key -- --kid=<kid>
Withdraws a signing key at once (a compromise). A kid may begin with "-": --kid=<kid> always works.`;
const { values } = parseCommandLine(USAGE, { kid: { type: 'string' } });
const kid = values.kid || usageExit(USAGE);
const config = configOrExit();
const result = await withSigningKeys(config, 'retire-signing-key', 'retire', ({ events, signer }) =>
  retireSigningKey(events, kid, operatorActor(), signer),
);
console.log(JSON.stringify({ kid, ...result }));
process.exitCode = result.retired ? 0 : 1;
