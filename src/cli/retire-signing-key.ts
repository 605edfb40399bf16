/**
 * `npm run retire-signing-key -- --kid=<kid>`: withdraws a compromised signing key at once. It
 * leaves the JWKS and its tokens stop verifying (/v1/issue, introspection) on every API replica
 * within SIGNING_KEY_REFRESH_MS; if it was the only active key, a new one signs at once.
 */
import { retireSigningKey } from '../commands/signing-key/change-keys.js';
import { loadKeyEncryptionKey } from '../crypto/key-files.js';
import { openTokenSigner } from '../crypto/signer-from-config.js';
import { operatorActor, operatorEventStore } from './operator.js';
import { parseCommandLine } from '#audit-log/cli/command-line.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';

const USAGE = `Usage: npm run retire-signing-key -- --kid=<kid>
Withdraws a signing key at once (a compromise). A kid may begin with "-": --kid=<kid> always works.`;
const { values } = parseCommandLine(USAGE, { kid: { type: 'string' } });
if (!values.kid) {
  console.error(USAGE);
  process.exit(2);
}
const config = configOrExit();
const logger = createLogger({ LOG_LEVEL: 'warn' }, 'retire-signing-key');
const database = await openDatabase(config, logger, 'token-authority-retire', 1, {
  timeouts: 'background',
});
const store = operatorEventStore(database.handle);
const kek = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
// SIGNING_BACKEND=pkcs11: a replacement key, if one is needed, is made inside the token.
const signer = await openTokenSigner(config, database.handle.db, kek).catch(exitOnConfigError);
const result = await retireSigningKey(store.events, values.kid, operatorActor(), signer);
console.log(JSON.stringify({ kid: values.kid, ...result }));
await signer.close();
await store.close();
await database.close();
process.exitCode = result.retired ? 0 : 1;
