import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterFile, tempDir } from './after-file.js';

/** What the server answers at a path: a JSON body (or raw text) and its headers. */
export interface Served {
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** An https server on loopback for client ID metadata documents, trusted by this test's process. */
export interface LocalDocuments {
  /** `https://localhost:<port>` (also reachable as `https://127.0.0.1:<port>`). */
  readonly port: number;
  serve(path: string, served: Served): void;
  /** How often each path was asked for. */
  readonly hits: Map<string, number>;
}

/**
 * Starts an https server whose self-signed certificate (localhost and 127.0.0.1) the process's
 * global https agent trusts from then on: the draft wants https, and the service under test runs
 * in this process.
 */
export async function startLocalDocuments(): Promise<LocalDocuments> {
  const dir = await tempDir('cimd-tls-');
  const [key, cert] = ['key.pem', 'cert.pem'].map((name) => path.join(dir, name));
  execFileSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'],
      ...['-keyout', key!, '-out', cert!, '-days', '1', '-subj', '/CN=localhost'],
      ...['-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1'],
    ],
    { stdio: 'ignore' },
  );
  const pem = readFileSync(cert!, 'utf8');
  https.globalAgent.options.ca = [pem];
  const routes = new Map<string, Served>();
  const hits = new Map<string, number>();
  const server = https.createServer({ key: readFileSync(key!), cert: pem }, (request, response) => {
    const url = request.url ?? '';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const served = routes.get(url);
    if (!served) {
      response.statusCode = 404;
      return response.end();
    }
    response.setHeader('content-type', 'application/json');
    for (const [name, value] of Object.entries(served.headers ?? {}))
      response.setHeader(name, value);
    response.end(typeof served.body === 'string' ? served.body : JSON.stringify(served.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterFile(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return {
    port: (server.address() as AddressInfo).port,
    serve: (at, served) => routes.set(at, served),
    hits,
  };
}

/** An agent: its key pair, and assertions (private_key_jwt) naming `clientId` signed with it. */
export async function agentKey() {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: crypto.randomUUID(), alg: 'ES256' };
  return {
    jwks: { keys: [jwk] },
    assert: (clientId: string, audience: string) =>
      new SignJWT({ jti: crypto.randomUUID() })
        .setProtectedHeader({ alg: 'ES256', kid: jwk.kid! })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(audience)
        .setIssuedAt()
        .setExpirationTime('60s')
        .sign(privateKey),
  };
}

/** Serves an agent's document at `path` on `host` (Cache-Control max-age 60); its id, the URL. */
export function serveAgent(
  docs: LocalDocuments,
  jwks: unknown,
  path: string,
  host = 'localhost',
): string {
  const clientId = `https://${host}:${docs.port}${path}`;
  docs.serve(path, {
    body: { client_id: clientId, client_name: 'Shopping agent', jwks },
    headers: { 'cache-control': 'max-age=60' },
  });
  return clientId;
}
