/**
 * `SIGNING_KEY_ENCRYPTION_KEY=<new> npm run rewrap-signing-keys -- --from=<old key, or file:<path>>`: moves
 * every token signing key sealed under the old key-encryption key to the new one (only each key's
 * data key is re-encrypted), in one transaction with its signing-keys-resealed event. Restart the
 * API processes with the new key afterwards; a second run finds nothing to move.
 */
import { loadKeyEncryptionKey } from '../crypto/key-files.js';
import { rewrapSigningKeys } from '../commands/signing-key/reseal.js';
import { parseCommandLine } from '#audit-log/cli/command-line.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';
import { operatorActor, operatorEventStore } from './operator.js';
import { createLogger, openDatabase } from './runtime.js';

const USAGE = `Usage: npm run rewrap-signing-keys -- --from=<old key, or file:<path>>
Moves the token signing keys from the old key-encryption key to the one SIGNING_KEY_ENCRYPTION_KEY
names now (set it to the new key for this command), then restart the API with the new key.`;
const { values } = parseCommandLine(USAGE, { from: { type: 'string' } });
if (!values.from) {
  console.error(USAGE);
  process.exit(2);
}
const config = configOrExit();
const from = await loadKeyEncryptionKey(values.from, config.DATA_DIR, '--from').catch(
  exitOnConfigError,
);
const to = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
const logger = createLogger({ LOG_LEVEL: 'warn' }, 'rewrap-signing-keys');
const database = await openDatabase(config, logger, 'token-authority-rewrap', 1, {
  timeouts: 'background',
});
const store = operatorEventStore(database.handle);
const rewrapped = await rewrapSigningKeys(store.events, from, to, operatorActor());
console.log(JSON.stringify({ from: from.id, to: to.id, rewrapped }));
await store.close();
await database.close();
