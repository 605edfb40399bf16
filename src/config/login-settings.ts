import { z } from 'zod';
import { integer, nonEmpty, oneOf, optional, text } from '#settings/setting-types.js';

/** The dashboard users' login tokens and where their keys come from. */
export const loginSettings = {
  LOGIN_JWKS_URL: optional(
    z.url(),
    'the development login key, generated into `DATA_DIR/dev-login-key.json` and signed with by `npm run login-token`; production: this or `LOGIN_PUBLIC_KEY` required',
  ).describe(
    "JWKS URL of the dashboard's identity provider, whose login tokens are trusted; with `NODE_ENV=production` https only (unless `ALLOW_HTTP_HOSTS` names its host). Set it or `LOGIN_PUBLIC_KEY`, not both.",
  ),
  LOGIN_PUBLIC_KEY: optional(nonEmpty).describe(
    "Instead of `LOGIN_JWKS_URL`, the identity provider's public key: PEM (SPKI), JWK or JWKS.",
  ),
  LOGIN_ISSUER: optional(nonEmpty).describe(
    'Required `iss` of login tokens; required with `LOGIN_JWKS_URL` or `LOGIN_PUBLIC_KEY`. A login token must also carry `aud` (`LOGIN_AUDIENCE`), `sub`, `iat`, `exp` and the spaces claim; one without `iat` or `exp` is refused (`token claim "iat" is missing`).',
  ),
  LOGIN_AUDIENCE: text('token-authority').describe('Required `aud` of login tokens.'),
  LOGIN_SPACES_CLAIM: text('spaces').describe(
    'The claim listing the spaces a dashboard user may manage.',
  ),
  LOGIN_ROLE_CLAIM: text('role').describe(
    "The claim with the user's role: `auditor` (reads only) or `admin`; absent: `LOGIN_DEFAULT_ROLE`.",
  ),
  LOGIN_DEFAULT_ROLE: oneOf(['auditor', 'admin'], 'auditor').describe(
    'The role of a login token without the role claim: the least, unless set to `admin` for an identity provider that knows no roles.',
  ),
  LOGIN_TOKEN_MAX_AGE_SECONDS: integer(60, 2_592_000, 43_200).describe(
    'Login tokens older than this many seconds (by `iat`) are refused.',
  ),
};
