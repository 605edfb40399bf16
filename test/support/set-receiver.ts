import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';

/** One pushed Security Event Token as an RFC 8935 receiver saw it, verified. */
export interface ReceivedSet {
  /** `performance.now()` when its request ended. */
  readonly at: number;
  readonly claims: JWTPayload & {
    readonly sub_id?: { readonly format: string; readonly id: string };
    readonly events?: Record<string, Record<string, unknown>>;
    readonly txn?: string;
  };
  readonly authorization: string | undefined;
  readonly contentType: string | undefined;
}

/**
 * An RFC 8935 push receiver as a relying party runs it: each SET verified with `jose` against
 * the transmitter's JWKS (typ `secevent+jwt`, its issuer, the stream's `aud`), 202 when it
 * verifies, 400 `{err}` when it does not (RFC 8935 §2.3). `audience()` is read at each request:
 * a stream made through the API learns its id after the receiver listens.
 */
export async function startSetReceiver(options: {
  readonly issuer: string;
  readonly jwksUri: string;
  readonly audience: () => string;
  /** Answers a verified SET with this status instead of 202 (a failing receiver). */
  readonly answer?: () => number;
}) {
  const keys = createRemoteJWKSet(new URL(options.jwksUri));
  const received: ReceivedSet[] = [];
  const refused: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const jwt = Buffer.concat(chunks).toString('utf8');
      jwtVerify(jwt, keys, {
        issuer: options.issuer,
        audience: options.audience(),
        typ: 'secevent+jwt',
      })
        .then(({ payload }) => {
          received.push({
            at,
            claims: payload as ReceivedSet['claims'],
            authorization: request.headers.authorization,
            contentType: request.headers['content-type'],
          });
          response.writeHead(options.answer?.() ?? 202).end();
        })
        .catch((error: unknown) => {
          refused.push(String(error));
          response.writeHead(400, { 'content-type': 'application/json', 'content-language': 'en' });
          response.end(JSON.stringify({ err: 'invalid_key', description: String(error) }));
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/ssf/push`,
    received,
    refused,
    /** The SETs of one event type URI, in the order they came. */
    ofType: (uri: string) => received.filter((set) => set.claims.events?.[uri] !== undefined),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
