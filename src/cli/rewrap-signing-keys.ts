/**
 * `SIGNING_KEY_ENCRYPTION_KEY=<new> npm run rewrap-signing-keys -- --from=<old key, or file:<path>>`: moves
 * every token signing key sealed under the old key-encryption key to the new one (only each key's
 * data key is re-encrypted), in one transaction with its signing-keys-resealed event. Restart the
 * API processes with the new key afterwards; a second run finds nothing to move.
 */
import { loadKeyEncryptionKey } from '../crypto/key-files.js';
import { rewrapSigningKeys } from '../commands/signing-key/reseal.js';
import { exitOnConfigError, parseCommandLine } from '#settings/command-line.js';
import { configOrExit, usageExit } from './config-exit.js';
import { operatorActor, withOperatorEvents } from './operator.js';

const USAGE = `Usage: npm run rewrap-signing-keys -- --from=<old key, or file:<path>>
Moves the token signing keys from the old key-encryption key to the one SIGNING_KEY_ENCRYPTION_KEY
names now (set it to the new key for this command), then restart the API with the new key.`;
const { values } = parseCommandLine(USAGE, { from: { type: 'string' } });
const fromKey = values.from || usageExit(USAGE);
const config = configOrExit();
const from = await loadKeyEncryptionKey(fromKey, config.DATA_DIR, '--from').catch(
  exitOnConfigError,
);
const to = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
const rewrapped = await withOperatorEvents(config, 'rewrap-signing-keys', 'rewrap', (events) =>
  rewrapSigningKeys(events, from, to, operatorActor()),
);
console.log(JSON.stringify({ from: from.id, to: to.id, rewrapped }));
