/**
 * `npm run rotate-signing-key [-- --activate-in=<seconds>]`: adds a new access-token signing key.
 * It is published in the JWKS at once and signs from `--activate-in` seconds on (default 360: the
 * JWKS Cache-Control max-age of 300 s plus margin); the keys it replaces stay published until
 * every token they signed has expired, then leave the JWKS. Both changes are events.
 */
import { rotateSigningKey } from '../commands/signing-key/change-keys.js';
import { loadKeyEncryptionKey } from '../crypto/key-files.js';
import { openTokenSigner } from '../crypto/signer-from-config.js';
import { operatorActor, operatorEventStore } from './operator.js';
import { parseCommandLine } from '#audit-log/cli/command-line.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';

const USAGE = 'Usage: npm run rotate-signing-key -- [--activate-in=<seconds, default 360>]';
const { values } = parseCommandLine(USAGE, { 'activate-in': { type: 'string', default: '360' } });
const config = configOrExit();
const activateInSeconds = Number(values['activate-in']);
if (!Number.isInteger(activateInSeconds) || activateInSeconds < 0) {
  console.error(USAGE);
  process.exit(2);
}
const logger = createLogger({ LOG_LEVEL: 'warn' }, 'rotate-signing-key');
const database = await openDatabase(config, logger, 'token-authority-rotate', 1, {
  timeouts: 'background',
});
const store = operatorEventStore(database.handle);
const kek = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
// SIGNING_BACKEND=pkcs11: the new key is made inside the token.
const signer = await openTokenSigner(config, database.handle.db, kek).catch(exitOnConfigError);
const rotated = await rotateSigningKey(store.events, {
  kek,
  signer,
  activateInSeconds,
  retireAfterSeconds: Math.max(config.PRIVATE_TOKEN_TTL_SECONDS, config.PUBLIC_TOKEN_TTL_SECONDS),
  actor: operatorActor(),
});
console.log(JSON.stringify(rotated));
await signer.close();
await store.close();
await database.close();
