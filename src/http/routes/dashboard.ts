import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { route, type Route } from '../route.js';

const require = createRequire(import.meta.url);
const own = (name: string) => new URL(`../dashboard/${name}`, import.meta.url);

/** The page and its assets: ours from src/http/dashboard, uPlot from node_modules (no CDN). */
const ASSETS = {
  '/dashboard': { file: own('index.html'), type: 'text/html; charset=utf-8' },
  '/dashboard/dashboard.js': { file: own('dashboard.js'), type: 'text/javascript; charset=utf-8' },
  '/dashboard/dashboard.css': { file: own('dashboard.css'), type: 'text/css; charset=utf-8' },
  '/dashboard/uplot.js': {
    file: require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  '/dashboard/uplot.css': {
    file: require.resolve('uplot/dist/uPlot.min.css'),
    type: 'text/css; charset=utf-8',
  },
} as const;

// Only our own scripts and styles run, nothing is framed, and the page talks to this origin only.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** GET /dashboard and its assets, read once at start. */
export function dashboardRoutes(): readonly Route[] {
  return Object.entries(ASSETS).map(([path, asset]) => {
    const content = readFileSync(asset.file);
    return route('get', path, 'public', {
      // dashboardAsset_uplot_js: an identifier code generators accept.
      operationId:
        path === '/dashboard'
          ? 'dashboard'
          : `dashboardAsset_${path.slice('/dashboard/'.length).replace(/[^A-Za-z0-9]/g, '_')}`,
      tag: 'Dashboard',
      summary:
        path === '/dashboard'
          ? "The operators' dashboard (sign in with a login token; data from the JSON APIs)"
          : 'A dashboard asset',
      responses: [{ status: 200, description: 'The file', mediaType: asset.type.split(';')[0]! }],
      handle(ctx) {
        ctx.set('Content-Security-Policy', CSP);
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Referrer-Policy', 'no-referrer');
        ctx.set('Cache-Control', 'no-cache');
        ctx.type = asset.type;
        ctx.body = content;
      },
    });
  });
}
