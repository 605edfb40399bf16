/**
 * `npm run verify-token -- <token> [--jwks <url>] [--audience <aud>]`: verifies an access token the
 * way a Storefront API does, against the JWKS endpoint, and prints its header and claims.
 */
import { parseArgs } from 'node:util';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { configOrExit, exitWithUsageIfAsked } from './runtime.js';

exitWithUsageIfAsked(`Usage: npm run verify-token -- <token> [--jwks <url>] [--audience <aud>]
Verifies an access token against the JWKS endpoint, as a Storefront API does.`);
const config = configOrExit();
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    jwks: { type: 'string', default: `http://localhost:${config.PORT}/.well-known/jwks.json` },
    audience: { type: 'string', default: config.TOKEN_AUDIENCES[0] },
  },
});
const token = positionals[0];
if (!token) {
  console.error('usage: npm run verify-token -- <token> [--jwks <url>] [--audience <aud>]');
  process.exit(2);
}
try {
  const { payload, protectedHeader } = await jwtVerify(
    token,
    createRemoteJWKSet(new URL(values.jwks!)),
    {
      issuer: config.TOKEN_ISSUER,
      audience: values.audience,
      typ: 'at+jwt',
    },
  );
  console.log(JSON.stringify({ valid: true, header: protectedHeader, claims: payload }, null, 2));
} catch (error) {
  console.log(JSON.stringify({ valid: false, reason: (error as Error).message }));
  process.exitCode = 1;
}
