import { requestMetadata } from './request-context.js';
import type { RequestContext } from './state.js';

/**
 * Answers `body` (with `status`, else Koa's 200) never to be cached: a dashboard answer names a
 * space's credentials, sinks or secrets, which no shared cache may keep.
 */
export function answerNoStore(ctx: RequestContext, body: unknown, status?: number): void {
  ctx.set('Cache-Control', 'no-store');
  ctx.body = body;
  if (status !== undefined) ctx.status = status;
}

/** Answers `text` as UTF-8 plain text (a signed note, a policy, a receipt), cached as `cacheControl` says. */
export function answerText(ctx: RequestContext, text: string, cacheControl: string): void {
  ctx.set('Cache-Control', cacheControl);
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = text;
}

/** The browser sent on to `url`: a 302 with no body, its Location the answer, never cached. */
export function redirectBrowser(ctx: RequestContext, url: string): void {
  // An explicit null body: Koa answers no body (it would say 204; the status set after wins).
  ctx.body = null;
  ctx.status = 302;
  ctx.set('Location', url);
  ctx.set('Cache-Control', 'no-store');
}

/** A change asked of a space by a logged-in user: the space, and the metadata its event keeps. */
export function spaceChange(ctx: RequestContext, who: { spaceId: string; actor: string }) {
  return { spaceId: who.spaceId, metadata: { actor: who.actor, ...requestMetadata(ctx) } };
}
