import { createServer, type Server } from 'node:http';

/** A route of a child program: the request's JSON body in, a JSON answer out. */
export type JsonRoute = (body: Record<string, unknown>) => Promise<unknown>;

/**
 * The storefront's and the agent's servers: `/healthz`, and POST routes of JSON, on 127.0.0.1 at
 * PORT; SIGTERM closes it. Small on purpose: what they do is the token service's protocol.
 */
export function serveJson(routes: Record<string, JsonRoute>): Server {
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/healthz') return answer(200, { status: 'ok' });
    const route = request.method === 'POST' ? routes[request.url ?? ''] : undefined;
    if (!route) return answer(404, { error: 'not_found' });
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (text += chunk));
    request.on('end', () => {
      route(JSON.parse(text || '{}') as Record<string, unknown>).then(
        (body) => answer(200, body),
        (error: unknown) => answer(500, { error: String(error) }),
      );
    });
  });
  server.listen(Number(process.env.PORT), '127.0.0.1');
  process.once('SIGTERM', () => server.close());
  return server;
}
