import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterFile } from './after-file.js';

/** A platform's token issuer on loopback: its discovery document, its JWKS, and what it mints. */
export interface LocalIssuer {
  /** The `iss` its tokens carry (a real platform's, served from here as behind a proxy). */
  readonly iss: string;
  readonly baseUrl: string;
  readonly jwksUri: string;
  /** Signs `claims` (iss, iat and a random jti added unless given) with its key. */
  mint(claims: JWTPayload, options?: { readonly lifetimeSeconds?: number }): Promise<string>;
  /** Signs with this issuer's key but claims to be `iss`: another issuer's key. */
  mintAs(iss: string, claims: JWTPayload): Promise<string>;
}

/**
 * Starts an issuer on 127.0.0.1 serving `/.well-known/openid-configuration` and `/jwks`, its key
 * of `alg` (Kubernetes and GitHub sign with RS256, SPIRE with ES256 by default).
 */
export async function startLocalIssuer(options: {
  readonly iss?: string;
  readonly alg: 'RS256' | 'ES256';
}): Promise<LocalIssuer> {
  const { privateKey, publicKey } = await generateKeyPair(options.alg);
  const kid = `key-${Math.random().toString(36).slice(2)}`;
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: options.alg, use: 'sig' };
  let issuer = '';
  const server = http.createServer((request, response) => {
    const send = (body: unknown) => {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(body));
    };
    if (request.url === '/jwks') return send({ keys: [jwk] });
    if (request.url === '/.well-known/openid-configuration') {
      return send({
        issuer,
        jwks_uri: `${baseUrl}/jwks`,
        response_types_supported: ['id_token'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: [options.alg],
      });
    }
    response.statusCode = 404;
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = options.iss ?? baseUrl;
  afterFile(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const sign = (iss: string, claims: JWTPayload, lifetimeSeconds = 60) => {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({
      jti: crypto.randomUUID(),
      iat: now,
      exp: now + lifetimeSeconds,
      ...claims,
      iss,
    })
      .setProtectedHeader({ alg: options.alg, kid, typ: 'JWT' })
      .sign(privateKey);
  };
  return {
    iss: issuer,
    baseUrl,
    jwksUri: `${baseUrl}/jwks`,
    mint: (claims, mintOptions) => sign(issuer, claims, mintOptions?.lifetimeSeconds),
    mintAs: (iss, claims) => sign(iss, claims),
  };
}
