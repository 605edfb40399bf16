import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsentApp } from '../../../tools/consent-app/app.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/browser.js';
import { codeFlowSpace, type CodeFlowSpace } from '../../support/code-flow.js';
import type { TestService } from '../../support/test-service.js';

/**
 * Issue 64, item 5: the example consent app (`npm run consent-app`), driven in a real browser as a
 * customer would: an agent's authorization URL opens the storefront's page, the customer signs in,
 * sees who asks for what, allows it; the agent's redirect URI gets its code; the customer lists
 * the consent and withdraws it, and the agent's token stops working.
 */
const SPACE = 'space-consent-app';
const SCOPES = ['products:read', 'cart:write'];
// CI always has a browser (.ci/run installs Debian's chromium); elsewhere a missing one is said.
const noBrowser = CHROMIUM_PATH === null && process.env.CI !== 'true';
if (noBrowser) console.error('consent app test skipped: no Chromium (set CHROMIUM_PATH)');

let service: TestService;
let app: ConsentApp;
let browser: Browser;
let callback: Server;
const codes: URL[] = [];
let agent: string;
let parties: CodeFlowSpace['parties'];

beforeAll(async () => {
  if (noBrowser) return;
  ({ service, app, agent, parties } = await codeFlowSpace(SPACE, {
    agentName: 'Shopping <b>agent</b>',
    scopes: SCOPES,
  }));
  // The agent's loopback redirect URI: it keeps what the browser brings there (not the favicon
  // the browser may ask for next, whose request can arrive before the test reads the list).
  callback = createServer((request, response) => {
    const url = new URL(request.url!, 'http://127.0.0.1');
    if (url.pathname === '/callback') codes.push(url);
    response.end('back at the agent');
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH ?? undefined,
    args: CHROMIUM_ARGS,
  });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await new Promise((resolve) => (callback ? callback.close(resolve) : resolve(undefined)));
});

describe('the example consent app in a real browser', () => {
  it.skipIf(noBrowser)(
    'a customer signs in, allows an agent, sees the consent and withdraws it: the token stops',
    async () => {
      const { port } = callback.address() as AddressInfo;
      const redirectUri = `http://127.0.0.1:${port}/callback`;
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const authorize = new URL(`${service.baseUrl}/spaces/${SPACE}/authorize`);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: agent,
        redirect_uri: redirectUri,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        scope: SCOPES.join(' '),
        state,
      })) {
        authorize.searchParams.set(name, value);
      }
      const page = await browser.newPage();
      await page.goto(authorize.href);
      // The storefront's page: not signed in yet.
      expect(page.url()).toContain(`${app.url}/consent?authorization_request=ar_`);
      await page.fill('input[name=customer]', 'alice');
      await page.click('button[type=submit]');
      // The agent's words shown as its words: its markup is text, not bold.
      expect(await page.textContent('#agent-name')).toBe('Shopping <b>agent</b>');
      expect(await page.textContent('#customer')).toBe('alice');
      // The customer allows less than asked: cart:write unticked.
      await page.uncheck('input[value="cart:write"]');
      await page.click('#accept');
      await page.waitForURL(`${redirectUri}?**`);
      const back = codes.at(-1)!;
      const params = oauth.validateAuthResponse(
        {
          issuer: `${service.config.TOKEN_ISSUER}/spaces/${SPACE}`,
          authorization_response_iss_parameter_supported: true,
        },
        { client_id: agent },
        back,
        state,
      );
      const redeemed = await service.post('/v1/credential/token', {
        grant_type: 'authorization_code',
        code: params.get('code')!,
        code_verifier: verifier,
        client_id: agent,
        redirect_uri: redirectUri,
      });
      const tokens = (await redeemed.json()) as { access_token: string; refresh_token: string };
      expect(redeemed.status, JSON.stringify(tokens)).toBe(200);
      expect(decodeJwt(tokens.access_token)).toMatchObject({
        sub: 'alice',
        act: { sub: agent },
        scope: 'products:read',
      });

      await page.goto(`${app.url}/consents`);
      expect(await page.locator('li.consent').count()).toBe(1);
      expect(await page.textContent('li.consent')).toContain(agent);
      // Already at /consents: wait for the list after the withdrawal, not for the URL.
      await page.click('button.revoke');
      await page.locator('li.consent').waitFor({ state: 'detached' });
      const storefront = await parties.credential(SCOPES);
      const introspected = await service.post('/v1/introspect', {
        ...storefront,
        token: tokens.access_token,
      });
      expect(await introspected.json()).toMatchObject({ active: false });
      const refreshed = await service.post('/v1/credential/token', {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: agent,
      });
      expect(refreshed.status).toBe(400);
    },
  );

  it.skipIf(noBrowser)(
    'a form from another site, without the page’s form token, changes nothing',
    async () => {
      const response = await fetch(`${app.url}/consents/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'consent=ar_xxxxxxxxxxxxxxxxxxxxxx',
        redirect: 'manual',
      });
      expect(response.status).toBe(403);
    },
  );
});
