/**
 * `npm run rotate-signing-key [-- --activate-in <seconds>]`: adds a new access-token signing key.
 * It is published in the JWKS at once and signs from `--activate-in` seconds on (default 360: the
 * JWKS Cache-Control max-age of 300 s plus one SIGNING_KEY_REFRESH_MS of 60 s); the keys it
 * replaces stay published until every token they signed has expired, then leave the JWKS.
 */
import { parseArgs } from 'node:util';
import { rotateSigningKey } from '../tokens/signing-keys.js';
import { configOrExit, createLogger, openDatabase } from './runtime.js';

const config = configOrExit();
const { values } = parseArgs({ options: { 'activate-in': { type: 'string', default: '360' } } });
const activateInSeconds = Number(values['activate-in']);
if (!Number.isInteger(activateInSeconds) || activateInSeconds < 0) {
  console.error('usage: npm run rotate-signing-key -- [--activate-in <seconds, default 360>]');
  process.exit(2);
}
const logger = createLogger({ LOG_LEVEL: 'warn' }, 'rotate-signing-key');
const database = await openDatabase(config, logger, 'token-authority-rotate', 1);
const rotated = await rotateSigningKey(database.handle.db, {
  activateInSeconds,
  retireAfterSeconds: Math.max(config.PRIVATE_TOKEN_TTL_SECONDS, config.PUBLIC_TOKEN_TTL_SECONDS),
});
console.log(JSON.stringify(rotated));
await database.close();
