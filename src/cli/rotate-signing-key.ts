/**
 * `npm run rotate-signing-key [-- --activate-in=<seconds>]`: adds a new access-token signing key.
 * It is published in the JWKS at once and signs from `--activate-in` seconds on (default 360: the
 * JWKS Cache-Control max-age of 300 s plus margin); the keys it replaces stay published until
 * every token they signed has expired, then leave the JWKS. Both changes are events.
 */
import { rotateSigningKey } from '../commands/signing-key/change-keys.js';
import { operatorActor, withSigningKeys } from './operator.js';
import { parseCommandLine } from '#settings/command-line.js';
import { configOrExit, usageExit } from './config-exit.js';
import { longestTokenSeconds } from './rotation-settings.js';

const USAGE = 'Usage: npm run rotate-signing-key -- [--activate-in=<seconds, default 360>]';
const { values } = parseCommandLine(USAGE, { 'activate-in': { type: 'string', default: '360' } });
const config = configOrExit();
const activateInSeconds = Number(values['activate-in']);
if (!Number.isInteger(activateInSeconds) || activateInSeconds < 0) usageExit(USAGE);
const rotated = await withSigningKeys(
  config,
  'rotate-signing-key',
  'rotate',
  ({ events, kek, signer }) =>
    rotateSigningKey(events, {
      kek,
      signer,
      activateInSeconds,
      retireAfterSeconds: longestTokenSeconds(config),
      actor: operatorActor(),
    }),
);
console.log(JSON.stringify(rotated));
