/**
 * The HTTP ceiling of this stack on this machine: Koa + @koa/router + @koa/bodyparser answering a
 * JSON POST with a small JSON body, nothing else. Prints "ready <port>" when listening.
 */
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import Koa from 'koa';

const app = new Koa();
const router = new Router();
router.post('/echo', (ctx) => {
  ctx.set('Cache-Control', 'no-store');
  ctx.body = { ok: true, received: Object.keys(ctx.request.body as object).length };
});
app.use(bodyParser({ enableTypes: ['json'] }));
app.use(router.routes());
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(`ready ${(server.address() as { port: number }).port}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
