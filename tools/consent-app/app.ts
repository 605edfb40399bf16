import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CUSTOMER_NAME,
  consentPage,
  consentsPage,
  page,
  signInPage,
  text,
  type Asked,
  type Consent,
} from './pages.js';

/**
 * An example storefront consent app (issue 64, item 5): what a storefront builds beside the
 * service, so a newcomer can try the code flow. It signs a test customer in (a name, no password:
 * an example), shows who asks for what — the agent's words marked as its own —, and accepts or
 * rejects with the storefront's private token; it lists the customer's consents and withdraws one.
 * It speaks to the service over HTTP alone, as a storefront's server would.
 */
export interface ConsentAppOptions {
  /** Where the service answers (its token endpoint and the storefront API). */
  readonly serviceUrl: string;
  /** The storefront's credential in the space: a registered one, never an agent's. */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The audience its token reads requests with; a request's own resource is accepted with its own. */
  readonly audience: string;
  readonly port?: number;
  readonly host?: string;
}

export interface ConsentApp {
  readonly url: string;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
const SESSION = 'consent_app_session';
const TIMEOUT_MS = 10_000;

export async function startConsentApp(options: ConsentAppOptions): Promise<ConsentApp> {
  // Sessions are signed with a key of this process: restarting the app signs everyone out.
  const key = randomBytes(32);
  const sign = (value: string) => createHmac('sha256', key).update(value).digest('base64url');
  const tokens = new Map<string, { token: string; until: number }>();

  /**
   * The storefront's private token for an audience (and the scopes it grants a customer: a
   * consent is never wider than the token it is given with), kept until a minute before its end.
   */
  async function privateToken(audience: string, scopes: readonly string[] = []): Promise<string> {
    const want = `${audience} ${scopes.join(' ')}`;
    const kept = tokens.get(want);
    if (kept && kept.until > Date.now()) return kept.token;
    const response = await fetch(new URL('/v1/credential/token', options.serviceUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: options.clientId,
        client_secret: options.clientSecret,
        audience,
        ...(scopes.length > 0 ? { scope: scopes.join(' ') } : {}),
      }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const body = (await response.json()) as { access_token?: string; expires_in?: number };
    if (!response.ok || !body.access_token) throw new Error(`token: ${JSON.stringify(body)}`);
    const until = Date.now() + Math.max(0, (body.expires_in ?? 0) - 60) * 1000;
    tokens.set(want, { token: body.access_token, until });
    return body.access_token;
  }

  async function call(
    method: string,
    path: string,
    body?: Json,
    audience = options.audience,
    scopes: readonly string[] = [],
  ) {
    const response = await fetch(new URL(path, options.serviceUrl), {
      method,
      headers: {
        authorization: `Bearer ${await privateToken(audience, scopes)}`,
        'content-type': 'application/json',
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** The signed-in customer, from a cookie this app signed; and the form token bound to it. */
  const customerOf = (request: IncomingMessage) => {
    const cookie = /(?:^|;\s*)consent_app_session=([^;]+)/.exec(request.headers.cookie ?? '');
    const [customer, mac] = decodeURIComponent(cookie?.[1] ?? '').split('|');
    if (!customer || !mac) return undefined;
    const good = Buffer.from(sign(customer));
    const sent = Buffer.from(mac);
    return good.length === sent.length && timingSafeEqual(good, sent) ? customer : undefined;
  };
  const formToken = (customer: string) => sign(`form|${customer}`);
  const hidden = (customer: string) =>
    `<input type="hidden" name="form_token" value="${text(formToken(customer))}">`;

  async function formOf(request: IncomingMessage): Promise<URLSearchParams> {
    let size = 0;
    const chunks: Buffer[] = [];
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > 16_384) throw new Error('form too large');
      chunks.push(chunk);
    }
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  }

  const send = (response: ServerResponse, status: number, html: string) => {
    response.writeHead(status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy':
        "default-src 'none'; img-src https:; form-action 'self' http: https:",
      'x-frame-options': 'DENY',
    });
    response.end(html);
  };
  const redirect = (response: ServerResponse, to: string, cookie?: string) => {
    response.writeHead(303, { location: to, ...(cookie ? { 'set-cookie': cookie } : {}) });
    response.end();
  };

  async function showRequest(response: ServerResponse, customer: string, id: string) {
    const read = await call('GET', `/v1/authorization-requests/${encodeURIComponent(id)}`);
    if (read.status !== 200) {
      const why = `<p>${text(read.body.error_description)}</p>`;
      return send(response, read.status, page('No such request', why));
    }
    send(response, 200, consentPage(customer, id, read.body as unknown as Asked, hidden(customer)));
  }

  async function showConsents(response: ServerResponse, customer: string) {
    const listed = await call('GET', `/v1/consents?customer_id=${encodeURIComponent(customer)}`);
    const consents = (listed.body.consents ?? []) as Consent[];
    send(response, 200, consentsPage(customer, consents, hidden(customer)));
  }

  async function serve(request: IncomingMessage, response: ServerResponse) {
    const url = new URL(request.url ?? '/', 'http://consent-app');
    const customer = customerOf(request);
    if (request.method === 'GET' && url.pathname === '/consent') {
      const id = url.searchParams.get('authorization_request') ?? '';
      if (!customer)
        return send(
          response,
          200,
          signInPage(`/consent?authorization_request=${encodeURIComponent(id)}`),
        );
      return showRequest(response, customer, id);
    }
    if (request.method === 'GET' && url.pathname === '/consents') {
      if (!customer) return send(response, 200, signInPage('/consents'));
      return showConsents(response, customer);
    }
    if (request.method !== 'POST') return send(response, 404, page('Not found', ''));
    const form = await formOf(request);
    if (url.pathname === '/sign-in') {
      const name = (form.get('customer') ?? '').trim();
      const back = form.get('back') ?? '/consents';
      // Only back into this app: never an open redirect.
      const to = back.startsWith('/') && !back.startsWith('//') ? back : '/consents';
      if (!CUSTOMER_NAME.test(name)) return send(response, 400, signInPage(to));
      const value = encodeURIComponent(`${name}|${sign(name)}`);
      return redirect(response, to, `${SESSION}=${value}; Path=/; HttpOnly; SameSite=Lax`);
    }
    // Every other form is the signed-in customer's own, from a page this app rendered for them.
    const sent = Buffer.from(form.get('form_token') ?? '');
    const expected = customer ? Buffer.from(formToken(customer)) : Buffer.alloc(0);
    if (!customer || sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
      return send(response, 403, page('Forbidden', '<p>Sign in again.</p>'));
    }
    if (url.pathname === '/decide') {
      const id = encodeURIComponent(form.get('request') ?? '');
      const path = `/v1/authorization-requests/${id}`;
      const read = await call('GET', path);
      const resource = String(read.body.resource ?? options.audience);
      const decided =
        form.get('decision') === 'accept'
          ? await call(
              'POST',
              `${path}/accept`,
              { customer_id: customer, segment_id: 'retail', scope: form.getAll('scope') },
              resource,
              form.getAll('scope'),
            )
          : await call('POST', `${path}/reject`, {}, resource);
      const to = decided.body.redirect_to;
      if (decided.status !== 200 || typeof to !== 'string') {
        return send(
          response,
          decided.status,
          page('Not done', `<p>${text(decided.body.error_description)}</p>`),
        );
      }
      return redirect(response, to);
    }
    if (url.pathname === '/consents/revoke') {
      const id = encodeURIComponent(form.get('consent') ?? '');
      await call('POST', `/v1/consents/${id}/revoke`, {});
      return redirect(response, '/consents');
    }
    send(response, 404, page('Not found', ''));
  }

  const server = createServer((request, response) => {
    serve(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        send(
          response,
          502,
          page('The service did not answer', `<p>${text((error as Error).message)}</p>`),
        );
      else response.destroy();
    });
  });
  server.requestTimeout = TIMEOUT_MS * 2;
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
