import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-hostile';
let service: TestService;
let login: string;
let privateToken: string;
let credential: { client_id: string; client_secret: string };

beforeAll(async () => {
  // Generous time bounds: this file judges inputs, and must not see load-shedding 503s when the
  // chaos and outage files load the machine beside it.
  service = await startTestService({
    BODY_LIMIT_BYTES: '16384',
    DATABASE_STATEMENT_TIMEOUT_MS: '15000',
    DATABASE_LOCK_TIMEOUT_MS: '15000',
    DATABASE_CONNECT_TIMEOUT_MS: '15000',
    REQUEST_DEADLINE_MS: '30000',
  });
  login = await service.loginToken([SPACE]);
  credential = await createCredentialVia(service, SPACE);
  privateToken = await privateTokenVia(service, credential);
});

/** Events that record something done (not the rejected authentications we also record). */
async function successEvents(): Promise<number> {
  const { rows } = await service.database.pool.query<{ n: number }>(
    // Refusals are recorded as such (bounded); what must not appear is anything else.
    `SELECT count(*)::int AS n FROM events
      WHERE event_type NOT IN ('client-authentication-failed', 'access-refused',
                               'access-refusals-summarized')`,
  );
  return rows[0]!.n;
}

async function send(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; text: string }> {
  const response = await fetch(`${service.baseUrl}${path}`, {
    method,
    headers: options.headers,
    body: options.body,
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, text: await response.text() };
}

const asLogin = { authorization: `Bearer ${'placeholder'}`, 'x-service-space-id': SPACE };
const json = { 'content-type': 'application/json' };

describe('text Postgres cannot store is refused at the edge with a 400 naming the field', () => {
  const cases: Array<{
    name: string;
    request: () => Promise<{ status: number; text: string }>;
    field: string;
  }> = [
    {
      name: 'NUL in a credential name',
      request: () =>
        send('POST', '/v1/credential', {
          headers: { ...json, ...asLogin, authorization: `Bearer ${login}` },
          body: JSON.stringify({ name: 'a\u0000b', description: 'x' }),
        }),
      field: 'name',
    },
    {
      name: 'a lone surrogate in a credential description',
      request: () =>
        send('POST', '/v1/credential', {
          headers: { ...json, ...asLogin, authorization: `Bearer ${login}` },
          body: '{"name":"n","description":"\\ud800"}',
        }),
      field: 'description',
    },
    ...[
      ['a right-to-left override in a credential name', 'name', 'pay\u202Elpmth.exe'],
      ['an isolate in a credential description', 'description', 'shop \u2067x\u2069'],
      ['a C0 control (escape) in a credential name', 'name', 'a\u001b[31mb'],
      ['a C1 control in a credential description', 'description', 'a\u0085b'],
    ].map(([name, field, text]) => ({
      name: name!,
      field: field!,
      request: () =>
        send('POST', '/v1/credential', {
          headers: { ...json, ...asLogin, authorization: `Bearer ${login}` },
          body: JSON.stringify({ name: 'n', description: 'd', [field!]: text }),
        }),
    })),
    {
      name: 'NUL in a customer id',
      request: () =>
        send('POST', '/v1/issue', {
          headers: {
            ...json,
            authorization: `Bearer ${privateToken}`,
            'x-service-space-id': SPACE,
          },
          body: JSON.stringify({ customer_id: '\u0000', segment_id: 's' }),
        }),
      field: 'customer_id',
    },
    {
      name: 'NUL in a client id (JSON)',
      request: () =>
        send('POST', '/v1/credential/token', {
          headers: json,
          body: JSON.stringify({
            client_id: 'ci_\u0000',
            client_secret: 'x',
            audience: AUDIENCE,
            grant_type: 'client_credentials',
          }),
        }),
      field: 'client_id',
    },
    {
      name: 'NUL in a client id (form)',
      request: () =>
        send('POST', '/v1/credential/token', {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `grant_type=client_credentials&client_id=a%00b&client_secret=x&audience=${AUDIENCE}`,
        }),
      field: 'client_id',
    },
    {
      name: 'NUL in a client id sent by HTTP Basic',
      request: () =>
        send('POST', '/v1/credential/token', {
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from('a%00b:secret').toString('base64')}`,
          },
          body: `grant_type=client_credentials&audience=${AUDIENCE}`,
        }),
      field: 'client_id',
    },
    {
      name: 'NUL in a path parameter',
      request: () =>
        send('GET', '/v1/monitoring/clients/a%00b/rates', {
          headers: { ...asLogin, authorization: `Bearer ${login}` },
        }),
      field: 'client_id',
    },
    {
      name: 'NUL in a query parameter',
      request: () =>
        send('GET', '/v1/audit/events?client_id=%00', {
          headers: { ...asLogin, authorization: `Bearer ${login}` },
        }),
      field: 'client_id',
    },
    {
      name: 'NUL in a key of the body',
      request: () =>
        send('POST', '/v1/credential', {
          headers: { ...json, ...asLogin, authorization: `Bearer ${login}` },
          body: '{"name":"n","description":"d","x\\u0000":1}',
        }),
      field: 'x\u0000',
    },
  ];

  it.each(cases)('$name', async ({ request, field }) => {
    const before = await successEvents();
    const response = await request();
    expect(response.status).toBe(400);
    const body = JSON.parse(response.text) as { invalid_fields?: Array<{ field: string }> };
    expect(body.invalid_fields?.map((f) => f.field)).toContain(field);
    expect(await successEvents()).toBe(before);
  });

  it('refuses deeply nested JSON, numbers out of range and odd encodings with a 4xx', async () => {
    const headers = { ...json, ...asLogin, authorization: `Bearer ${login}` };
    const nested = `{"name":${'['.repeat(5000)}${']'.repeat(5000)},"description":"d"}`;
    const responses = [
      await send('POST', '/v1/credential', { headers, body: nested }),
      await send('POST', '/v1/credential', { headers, body: '{"name":1e999,"description":"d"}' }),
      await send('GET', '/v1/audit/events?limit=1e400', { headers }),
      await send('GET', '/v1/audit/events?limit=-99999999999999999999', { headers }),
      await send('GET', `/${'%ff'.repeat(50)}`),
    ];
    for (const response of responses) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThan(500);
    }
    // A broken percent-encoding is kept as literal text: a client id no client has, not an error.
    const broken = await send('GET', '/v1/monitoring/clients/%E0%A4%A/rates', { headers });
    expect(broken.status).toBe(200);
    expect(JSON.parse(broken.text)).toMatchObject({ client_id: '%E0%A4%A' });
  });

  it('reads JSON as UTF-8 whatever charset the Content-Type claims (RFC 8259), or refuses it; never garbles it', async () => {
    const headers = { ...asLogin, authorization: `Bearer ${login}` };
    for (const charset of ['utf-16', 'latin1', 'nonsense']) {
      const response = await send('POST', '/v1/credential', {
        headers: { ...headers, 'content-type': `application/json; charset=${charset}` },
        body: JSON.stringify({ name: `é-${charset}`, description: 'd' }),
      });
      expect(response.status).toBeLessThan(500);
      if (response.status === 201) {
        expect(JSON.parse(response.text)).toMatchObject({ name: `é-${charset}` });
      }
    }
  });
});

// Any text, including NUL, lone surrogates and other odd code points.
const anyText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '\u0000', 'a\u0000', '\ud800', 'a\udfffb', '\uffff', 'x'.repeat(3000)),
);
/** Mostly `usual`, sometimes anything: hostile values must get past the outer checks to matter. */
const mostly = <T>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 4, arbitrary: usual }, { weight: 1, arbitrary: other });
const fieldValue = (valid: string) =>
  fc.oneof(fc.constant(valid), anyText, fc.jsonValue({ maxDepth: 2 }));
// Raw bytes, percent-encoded: any byte sequence may reach a path or a query string.
const rawBytes = mostly(
  fc
    .uint8Array({ maxLength: 16 })
    .map((bytes) => `a${[...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}%00`),
  fc
    .uint8Array({ maxLength: 24 })
    .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
);
const headerText = fc.stringMatching(/^[\x20-\x7e]{0,60}$/);

type Auth = 'login' | 'private' | 'none';
interface Endpoint {
  readonly method: 'GET' | 'POST';
  readonly path: (raw: string) => string;
  readonly auth: Auth;
  /** Body fields and a valid value of each. */
  readonly fields?: Readonly<Record<string, string>>;
}
const endpoints: Endpoint[] = [
  {
    method: 'POST',
    path: () => '/v1/credential',
    auth: 'login',
    fields: { name: 'n', description: 'd' },
  },
  {
    method: 'POST',
    path: () => '/v1/credential/token',
    auth: 'none',
    fields: {
      client_id: 'CLIENT',
      client_secret: 'SECRET',
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    },
  },
  {
    method: 'POST',
    path: () => '/v1/issue',
    auth: 'private',
    fields: { customer_id: 'c', segment_id: 's' },
  },
  { method: 'GET', path: (raw) => `/v1/audit/events?client_id=${raw}`, auth: 'login' },
  {
    method: 'GET',
    path: (raw) => `/v1/audit/events?segment_id=${raw}&limit=${raw}`,
    auth: 'login',
  },
  { method: 'GET', path: (raw) => `/v1/audit/export?from=${raw}&to=${raw}`, auth: 'login' },
  { method: 'GET', path: (raw) => `/v1/monitoring/clients/${raw}/rates`, auth: 'login' },
  { method: 'GET', path: (raw) => `/v1/monitoring/top-clients?metric=${raw}`, auth: 'login' },
  { method: 'GET', path: (raw) => `/${raw}`, auth: 'none' },
];

const authHeader = (auth: Auth) => {
  const right =
    auth === 'login'
      ? `Bearer ${login}`
      : auth === 'private'
        ? `Bearer ${privateToken}`
        : undefined;
  return mostly(
    fc.constant(right),
    fc.oneof(
      fc.constant(undefined),
      headerText,
      headerText.map((text) => `Bearer ${text}`),
      headerText.map((text) => `Basic ${Buffer.from(text).toString('base64')}`),
    ),
  );
};
const bodyFor = (fields: Readonly<Record<string, string>> = {}) =>
  mostly(
    fc.record(
      Object.fromEntries(
        Object.entries(fields).map(([name, valid]) => [
          name,
          fieldValue(
            valid
              .replace('CLIENT', credential.client_id)
              .replace('SECRET', credential.client_secret),
          ),
        ]),
      ),
    ) as fc.Arbitrary<unknown>,
    fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<unknown>,
  );

describe('property: whatever arrives, the answer is below 500 and a refusal records nothing', () => {
  it.each(endpoints.map((endpoint) => ({ ...endpoint, name: endpoint.path('{raw}') })))(
    '$method $name',
    async (endpoint) => {
      await fc.assert(
        fc.asyncProperty(
          bodyFor(endpoint.fields),
          rawBytes,
          authHeader(endpoint.auth),
          mostly(fc.constant(SPACE), headerText),
          mostly(
            fc.constant('application/json'),
            fc.constantFrom(
              'application/x-www-form-urlencoded',
              'text/plain',
              'application/json; charset=latin1',
            ),
          ),
          async (body, raw, authorization, space, contentType) => {
            const headers: Record<string, string> = { 'content-type': contentType };
            if (authorization !== undefined) headers.authorization = authorization;
            if (space) headers['x-service-space-id'] = space;
            const payload =
              contentType === 'application/x-www-form-urlencoded'
                ? new URLSearchParams(
                    // Generated values may be objects whose toString is not a function.
                    Object.entries(body ?? {}).map(([k, v]): [string, string] => [
                      k,
                      v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v),
                    ]),
                  ).toString()
                : JSON.stringify(body);
            const before = await successEvents();
            const response = await send(endpoint.method, endpoint.path(raw), {
              headers,
              body: endpoint.method === 'POST' ? payload : undefined,
            });
            expect(response.status, response.text).toBeLessThan(500);
            if (response.status >= 400) expect(await successEvents()).toBe(before);
          },
        ),
        { numRuns: Number(process.env.PROPERTY_RUNS ?? 80) },
      );
    },
  );
});
