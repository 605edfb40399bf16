// A stand-in for a dashboard's identity provider, for bringing docker-compose.yml up in CI: it
// serves a JWKS (what LOGIN_JWKS_URL names) and mints login tokens signed by its key, as a real
// provider would after a user signs in. Node's standard library only, so it runs in any Node image.
//   GET /jwks.json
//   GET /login-token?space=<id>[&space=<id>][&role=admin|auditor][&subject=<user>]
import { createServer } from 'node:http';
import { generateKeyPairSync, randomUUID, sign } from 'node:crypto';

const port = Number(process.env.PORT ?? 9000);
const issuer = process.env.ISSUER ?? `http://localhost:${port}`;
const audience = process.env.AUDIENCE ?? 'token-authority';
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const kid = randomUUID();
const jwks = { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] };

const encode = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');

function loginToken(query) {
  const now = Math.floor(Date.now() / 1000);
  const input = `${encode({ alg: 'ES256', kid, typ: 'JWT' })}.${encode({
    iss: issuer,
    aud: audience,
    sub: query.get('subject') ?? 'compose-user',
    spaces: query.getAll('space'),
    role: query.get('role') ?? 'admin',
    iat: now,
    exp: now + 600,
  })}`;
  const signature = sign('sha256', Buffer.from(input), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  return `${input}.${signature.toString('base64url')}`;
}

createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://idp');
  if (url.pathname === '/jwks.json') {
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify(jwks));
  } else if (url.pathname === '/login-token' && url.searchParams.getAll('space').length > 0) {
    response.setHeader('content-type', 'text/plain');
    response.end(loginToken(url.searchParams));
  } else {
    response.statusCode = 404;
    response.end('GET /jwks.json or /login-token?space=<id>\n');
  }
}).listen(port, () => console.log(`stand-in identity provider on :${port}, issuer ${issuer}`));
process.on('SIGTERM', () => process.exit(0));
