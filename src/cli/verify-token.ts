/**
 * `npm run verify-token -- [--jwks=<url>] [--audience=<aud>] <token>`: verifies an access token the
 * way a Storefront API does, against the JWKS endpoint, and prints its header and claims.
 */
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { parseCommandLine } from '#settings/command-line.js';
import { configOrExit, usageExit } from './config-exit.js';

const USAGE = `Usage: npm run verify-token -- [--jwks=<url>] [--audience=<aud>] <token>
Verifies an access token against the JWKS endpoint, as a Storefront API does.`;
const { values, positionals } = parseCommandLine(USAGE, {
  jwks: { type: 'string' },
  audience: { type: 'string' },
});
const config = configOrExit();
const token = positionals[0];
if (!token) usageExit(USAGE);
try {
  const { payload, protectedHeader } = await jwtVerify(
    token,
    createRemoteJWKSet(
      new URL(values.jwks ?? `http://localhost:${config.PORT}/.well-known/jwks.json`),
    ),
    {
      issuer: config.TOKEN_ISSUER,
      audience: values.audience ?? config.TOKEN_AUDIENCES[0],
      typ: 'at+jwt',
    },
  );
  console.log(JSON.stringify({ valid: true, header: protectedHeader, claims: payload }, null, 2));
} catch (error) {
  console.log(JSON.stringify({ valid: false, reason: (error as Error).message }));
  process.exitCode = 1;
}
