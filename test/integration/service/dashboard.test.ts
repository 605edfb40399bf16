/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
// Functions passed to page.evaluate run in the browser, hence the DOM types.
import { mkdir } from 'node:fs/promises';
import { exportJWK, generateKeyPair } from 'jose';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECTIONS } from '../../../src/projections/all.js';
import { catchUp } from '../../../src/projections/batches.js';
import { projectorLag } from '../../../src/projections/monitoring-queries.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../support/browser.js';
import {
  AUDIENCE,
  createCredentialVia,
  privateTokenVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

const SPACE = 'space-dashboard';
// CI always has a browser (.ci/run installs Debian's chromium); elsewhere a missing one is said.
const noBrowser = CHROMIUM_PATH === null && process.env.CI !== 'true';
if (noBrowser) console.error('dashboard test skipped: no Chromium (set CHROMIUM_PATH)');

/** Scopes for the page to show: two public defaults and a server-side one (issue 41). */
const CATALOG = {
  [AUDIENCE]: {
    'products:read': { description: 'Read products', public: true, default: true },
    'cart:write': { description: 'Change carts', public: true, default: true },
    'orders:read': { description: "Read every customer's orders" },
  },
};
let service: TestService;
let browser: Browser;

beforeAll(async () => {
  if (noBrowser) return;
  service = await startTestService({ SCOPE_CATALOG: JSON.stringify(CATALOG) });
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH ?? undefined,
    args: CHROMIUM_ARGS,
  });
});
afterAll(async () => browser?.close());

describe('dashboard in a real browser', () => {
  it.skipIf(noBrowser)(
    'shows the issued tokens, rejected and rate-limited requests, per-client chart and the audit trail',
    async () => {
      const login = {
        authorization: `Bearer ${await service.loginToken([SPACE])}`,
        'x-service-space-id': SPACE,
      };
      // Real traffic: web shop 3 private + 4 public, app 1 private, 2 wrong secrets, 2 refused.
      const shop = await createCredentialVia(service, SPACE, 'web shop');
      const app = await createCredentialVia(service, SPACE, 'mobile app');
      const tokens = [];
      for (let i = 0; i < 3; i += 1) tokens.push(await privateTokenVia(service, shop));
      for (let i = 0; i < 4; i += 1) {
        // The first asks for less than the defaults; the page shows what each was granted.
        const response = await service.post(
          '/v1/issue',
          {
            customer_id: `customer-${i}`,
            segment_id: 'vip',
            ...(i === 0 ? { scope: 'products:read' } : {}),
          },
          { authorization: `Bearer ${tokens[0]}`, 'x-service-space-id': SPACE },
        );
        expect(response.status).toBe(200);
      }
      await privateTokenVia(service, app);
      for (let i = 0; i < 2; i += 1) {
        const wrong = await service.post('/v1/credential/token', {
          grant_type: 'client_credentials',
          client_id: app.client_id,
          client_secret: 'not-the-secret',
          audience: AUDIENCE,
        });
        expect(wrong.status).toBe(401);
      }
      const limited = await service.post(
        '/v1/credential',
        {
          name: 'partner',
          description: 'limited',
          rate_limit_per_minute: 1,
          scopes: ['orders:read', 'products:read'],
        },
        login,
      );
      const partner = (await limited.json()) as { client_id: string; client_secret: string };
      await privateTokenVia(service, partner);
      for (let i = 0; i < 2; i += 1) {
        const refused = await service.post('/v1/credential/token', {
          grant_type: 'client_credentials',
          ...partner,
          audience: AUDIENCE,
        });
        expect(refused.status).toBe(429);
      }
      // Narrowed afterwards: the page shows what it allows now, and the trail what was taken away.
      const narrowed = await fetch(`${service.baseUrl}/v1/credential/${partner.client_id}`, {
        method: 'PATCH',
        headers: { ...login, 'content-type': 'application/json' },
        body: JSON.stringify({ scopes: ['products:read'] }),
      });
      expect(narrowed.status).toBe(200);
      // An audit sink, paused by its admin: the page gives it a line.
      const sink = await fetch(`${service.baseUrl}/v1/sinks`, {
        method: 'POST',
        headers: { ...login, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'siem',
          target: { kind: 'syslog', host: 'logs.example', port: 6514, tls: true },
        }),
      });
      const { sink_id: sinkId } = (await sink.json()) as { sink_id: string };
      await fetch(`${service.baseUrl}/v1/sinks/${sinkId}/pause`, {
        method: 'POST',
        headers: login,
      });
      // A trusted issuer (issue 54), its keys inline: the page lists its rule, not yet used.
      const { publicKey } = await generateKeyPair('ES256');
      const trusted = await fetch(`${service.baseUrl}/v1/trusted-issuers`, {
        method: 'POST',
        headers: { ...login, 'content-type': 'application/json' },
        body: JSON.stringify({
          iss: 'https://ci.example',
          jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] },
          audience: service.config.TOKEN_ISSUER,
          rules: [{ id: 'deploys', claims: { sub: 'repo:shop' }, client_id: shop.client_id }],
        }),
      });
      expect(trusted.status).toBe(201);
      for (const projection of PROJECTIONS) await catchUp(service.database.db, projection, 1000);

      const page = await browser.newPage({ viewport: { width: 1280, height: 1100 } });
      await page.goto(`${service.baseUrl}/dashboard`);
      await page.fill('input[name=space]', SPACE);
      await page.fill('textarea[name=token]', login.authorization.slice('Bearer '.length));
      await page.click('#sign-in button[type=submit]');
      await page.waitForSelector('body[data-loaded=true]', { timeout: 10_000 });

      expect(await page.locator('#sign-in').isVisible()).toBe(false);
      const text = (selector: string) => page.locator(selector).innerText();
      expect(await text('#total-private')).toBe('5');
      expect(await text('#total-public')).toBe('4');
      expect(await text('#total-rejected')).toBe('2');
      expect(await text('#total-rate-limited')).toBe('2');
      // Lag as the view says it; the page's own audit reads are events after the catch-up, so
      // the view may have grown by them since the page asked.
      const shown = /^(\d+\.\d) s · (\d+) events$/.exec(await text('#projector-lag'));
      expect(shown).not.toBeNull();
      const lag = await projectorLag(service.database.db);
      const behind = Math.max(...lag.map((row) => row.events_behind));
      expect(Number(shown![2])).toBeGreaterThan(0);
      expect(Number(shown![2])).toBeLessThanOrEqual(behind);

      const rows = await page
        .locator('#top-clients tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        );
      // Busiest first; the two with one token each tie, and ties go by client id.
      expect(rows[0]).toEqual([shop.client_id, 'web shop', '3', '4', '0']);
      expect(rows.slice(1).sort()).toEqual(
        [
          [app.client_id, 'mobile app', '1', '0', '2'],
          [partner.client_id, 'partner', '1', '0', '0'],
        ].sort(),
      );

      // The chart: one series per client, labelled with its tokens, and drawn on the canvas.
      const legend = await page.locator('#chart .u-legend .u-series .u-label').allInnerTexts();
      expect(legend).toEqual(
        expect.arrayContaining(['web shop (7)', 'mobile app (1)', 'partner (1)']),
      );
      const drawn = await page.locator('#chart canvas').evaluate((canvas: HTMLCanvasElement) => {
        const pixels = canvas
          .getContext('2d')!
          .getImageData(0, 0, canvas.width, canvas.height).data;
        let blue = 0; // the first series' stroke, #2f6fde
        for (let i = 0; i < pixels.length; i += 4) {
          if (
            pixels[i]! < 90 &&
            pixels[i + 1]! > 80 &&
            pixels[i + 1]! < 140 &&
            pixels[i + 2]! > 190
          )
            blue += 1;
        }
        return blue;
      });
      expect(drawn).toBeGreaterThan(20);

      const sinks = await page
        .locator('#sinks tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        );
      expect(sinks).toHaveLength(1);
      expect(sinks[0]).toEqual([
        'siem',
        'syslog logs.example:6514',
        expect.stringMatching(/^\d+ events · \d+ s$/),
        '',
        'paused (admin)',
      ]);

      const issuers = await page
        .locator('#trusted-issuers tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        );
      expect(issuers).toEqual([['https://ci.example', 'space', 'deploys', '0', 'never']]);
      expect(await page.locator('#agents tbody tr').count()).toBe(0);

      // Each credential's allowed scopes: the catalog's defaults, or what it was created with.
      const credentials = await page
        .locator('#credentials tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        );
      expect(credentials.sort()).toEqual(
        [
          [shop.client_id, 'web shop', 'active', 'cart:write products:read'],
          [app.client_id, 'mobile app', 'active', 'cart:write products:read'],
          [partner.client_id, 'partner', 'active', 'products:read'],
        ].sort(),
      );

      // The audit trail shows what each credential allows and each token was granted.
      expect(await page.locator('#audit tbody tr').count()).toBeGreaterThanOrEqual(13);
      const auditScopes = await page
        .locator('#audit tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
        );
      const scopesOf = (event: string, clientId: string) =>
        auditScopes
          .filter((cells) => cells[2] === event && cells[3] === clientId)
          .map((cells) => cells[7]);
      expect(scopesOf('credential-created', partner.client_id)).toEqual([
        'orders:read products:read',
      ]);
      expect(scopesOf('credential-scopes-changed', partner.client_id)).toEqual([
        'products:read (removed: orders:read)',
      ]);
      expect(scopesOf('credential-created', shop.client_id)).toEqual(['cart:write products:read']);
      // The partner holds orders:read, but asking for nothing grants the audience's defaults only.
      expect(scopesOf('private-token-issued', partner.client_id)).toEqual(['products:read']);
      expect(scopesOf('private-token-issued', shop.client_id)).toEqual(
        Array(3).fill('cart:write products:read'),
      );

      // Then filtered to public tokens.
      await page.selectOption('select[name=event_type]', 'public-token-issued');
      await page.click('#audit-filters button[type=submit]');
      await page.waitForFunction(() =>
        [...document.querySelectorAll('#audit tbody tr td:nth-child(3)')].every(
          (td) => td.textContent === 'public-token-issued',
        ),
      );
      const customers = await page.locator('#audit tbody tr td:nth-child(6)').allInnerTexts();
      // Newest first.
      expect(customers).toEqual(['customer-3', 'customer-2', 'customer-1', 'customer-0']);
      const granted = await page.locator('#audit tbody tr td:nth-child(8)').allInnerTexts();
      expect(granted).toEqual([
        'cart:write products:read',
        'cart:write products:read',
        'cart:write products:read',
        'products:read',
      ]);
      // Narrowed to the public tokens granted cart:write: customer-0 asked for less.
      await page.fill('#audit-filters input[name=scope]', 'cart:write');
      await page.click('#audit-filters button[type=submit]');
      await page.waitForFunction(() => document.querySelectorAll('#audit tbody tr').length === 3);
      expect(await page.locator('#audit tbody tr td:nth-child(6)').allInnerTexts()).toEqual([
        'customer-3',
        'customer-2',
        'customer-1',
      ]);

      // The token is in this tab's sessionStorage only, never in the URL or localStorage.
      const storage = await page.evaluate(() => ({
        session: sessionStorage.getItem('token-authority.session') ?? '',
        local: localStorage.length,
        url: location.href,
      }));
      expect(storage.session).toContain(login.authorization.slice('Bearer '.length));
      expect(storage.local).toBe(0);
      expect(storage.url).toBe(`${service.baseUrl}/dashboard`);

      await mkdir('test-results', { recursive: true });
      await page.screenshot({ path: 'test-results/dashboard.png', fullPage: true });

      // Signing out forgets the token.
      await page.click('#sign-out');
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await page.close();
    },
    60_000,
  );
});
