import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  importJWK,
  importSPKI,
  jwtVerify,
  SignJWT,
  type JWK,
  type JWTVerifyGetKey,
} from 'jose';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import { InvalidTokenError } from '../errors/errors.js';
import { joseRefusal } from '#verifier/refusal.js';
import { readOrCreateFile } from '#audit-log/read-or-create-file.js';
import { roleOfClaim, type LoginRole } from '../domain/policy.js';

/** Issuer of development login tokens minted by `npm run login-token`. */
export const DEV_LOGIN_ISSUER = 'urn:token-authority:dev-login';

/** A dashboard user's role; what each may do is the policy's (src/domain/policy). */
export type { LoginRole };

/** A verified dashboard user. */
export interface LoginIdentity {
  readonly subject: string;
  readonly issuer: string;
  readonly spaces: readonly string[];
  readonly role: LoginRole;
  /** The token's `exp` (epoch seconds): what it authorises ends then, live streams included. */
  readonly expiresAt: number;
}

/** Verifies login tokens of the dashboard's identity provider. */
export interface LoginTokenVerifier {
  verify(token: string): Promise<LoginIdentity>;
}

/** Where the development login key lives. */
export function devLoginKeyFile(dataDir: string): string {
  return path.resolve(dataDir, 'dev-login-key.json');
}

/** A verifier for the configured identity provider, else DATA_DIR's development key. */
export async function createLoginTokenVerifier(config: Config): Promise<LoginTokenVerifier> {
  const { key, issuer } = await resolveLoginKey(config);
  const spacesClaim = z.array(z.string().min(1)).max(10_000);
  return {
    async verify(token) {
      let payload: Record<string, unknown>;
      try {
        ({ payload } = await jwtVerify(token, key, {
          issuer,
          maxTokenAge: config.LOGIN_TOKEN_MAX_AGE_SECONDS,
          audience: config.LOGIN_AUDIENCE,
          requiredClaims: ['exp', 'sub'],
          algorithms: ['EdDSA', 'ES256', 'ES384', 'RS256', 'PS256'],
        }));
      } catch (error) {
        // Never echoes the token; a failure that is no JWS's (none known) says only that.
        const why = joseRefusal(error)?.reason ?? 'could not be verified';
        throw new InvalidTokenError(`login token rejected: token ${why}`);
      }
      if ('token_kind' in payload) {
        throw new InvalidTokenError('an access token cannot be used as a login token');
      }
      const spaces = spacesClaim.safeParse(payload[config.LOGIN_SPACES_CLAIM]);
      if (!spaces.success) {
        throw new InvalidTokenError(
          `login token has no "${config.LOGIN_SPACES_CLAIM}" claim listing spaces`,
        );
      }
      const role = roleOfClaim(payload[config.LOGIN_ROLE_CLAIM], config.LOGIN_DEFAULT_ROLE);
      return {
        subject: String(payload.sub),
        issuer,
        spaces: spaces.data,
        role,
        expiresAt: Number(payload.exp),
      };
    },
  };
}

async function resolveLoginKey(config: Config): Promise<{ key: JWTVerifyGetKey; issuer: string }> {
  if (config.LOGIN_JWKS_URL) {
    return {
      // A retired key stops verifying within a minute (open audit streams re-verify each minute too).
      key: createRemoteJWKSet(new URL(config.LOGIN_JWKS_URL), { cacheMaxAge: 60_000 }),
      issuer: config.LOGIN_ISSUER!,
    };
  }
  if (config.LOGIN_PUBLIC_KEY) {
    const text = config.LOGIN_PUBLIC_KEY.trim();
    const jwks = text.startsWith('{')
      ? toJwks(JSON.parse(text) as JWK | { keys: JWK[] })
      : { keys: [await pemToJwk(text)] };
    return { key: createLocalJWKSet(jwks), issuer: config.LOGIN_ISSUER! };
  }
  const privateJwk = await devLoginKey(config.DATA_DIR);
  const { d: _d, ...publicJwk } = privateJwk;
  return { key: createLocalJWKSet({ keys: [publicJwk] }), issuer: DEV_LOGIN_ISSUER };
}

/** The development login signing key (private JWK), generated on first use. */
export async function devLoginKey(dataDir: string): Promise<JWK> {
  const text = await readOrCreateFile(devLoginKeyFile(dataDir), () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    return JSON.stringify({
      ...privateKey.export({ format: 'jwk' }),
      alg: 'EdDSA',
      kid: 'dev-login',
    });
  });
  return JSON.parse(text) as JWK;
}

/** Mints a development login token for `spaces` (what `npm run login-token` prints). */
export async function mintDevLoginToken(options: {
  readonly dataDir: string;
  readonly audience: string;
  readonly spacesClaim: string;
  readonly subject: string;
  readonly spaces: readonly string[];
  readonly ttlSeconds: number;
  /** With its claim name; default: admin in the `role` claim (a token always names its role). */
  readonly role?: { readonly claim: string; readonly value: LoginRole };
}): Promise<string> {
  const jwk = await devLoginKey(options.dataDir);
  const key = await importJWK(jwk, 'EdDSA');
  return new SignJWT({
    [options.spacesClaim]: [...options.spaces],
    [options.role?.claim ?? 'role']: options.role?.value ?? 'admin',
  })
    .setProtectedHeader({ alg: 'EdDSA', kid: jwk.kid, typ: 'JWT' })
    .setIssuer(DEV_LOGIN_ISSUER)
    .setAudience(options.audience)
    .setSubject(options.subject)
    .setIssuedAt()
    .setExpirationTime(`${options.ttlSeconds}s`)
    .sign(key);
}

function toJwks(value: JWK | { keys: JWK[] }): { keys: JWK[] } {
  return 'keys' in value ? value : { keys: [value] };
}

async function pemToJwk(pem: string): Promise<JWK> {
  // Any common algorithm: the key type decides; jose needs one to import.
  for (const alg of ['EdDSA', 'ES256', 'RS256']) {
    try {
      const key = await importSPKI(pem, alg, { extractable: true });
      return { ...(await exportJWK(key)), alg };
    } catch {
      // try the next algorithm
    }
  }
  throw new Error('LOGIN_PUBLIC_KEY is neither a JWK, a JWKS, nor an SPKI PEM public key');
}
