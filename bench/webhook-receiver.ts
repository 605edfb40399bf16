/**
 * The bench's live audit sink (`npm run bench -- --sinks`): a webhook intake in a process of its
 * own, so its CPU is never counted as the service's. Verifies each batch with `standardwebhooks`
 * (the spec's verifier, as a SIEM's relay would) and answers 200; `GET /received` says how many
 * events and batches it took, so the bench can show that delivery really ran during the load.
 * Settings: PORT, WEBHOOK_SECRET. Prints "ready <port>" when listening. It runs at the lowest
 * scheduling priority: a SIEM's intake is another machine's CPU, so on the bench's two cores it
 * takes only what the service and the peer leave (it answers later; the deliverer lags, no more).
 */
import http from 'node:http';
import os from 'node:os';
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';

const env = z
  .object({ PORT: z.coerce.number().int().min(0).max(65535), WEBHOOK_SECRET: z.string().min(1) })
  .parse(process.env);
os.setPriority(19);
const verifier = new Webhook(env.WEBHOOK_SECRET);
const received = { events: 0, batches: 0, refused: 0 };

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/received') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let batch: unknown;
    try {
      batch = verifier.verify(
        Buffer.concat(chunks).toString('utf8'),
        request.headers as Record<string, string>,
      );
    } catch {
      // Unsigned or wrongly signed: refused, so a broken signer shows as a growing lag, not as
      // events that seem delivered.
      received.refused += 1;
      response.writeHead(401).end();
      return;
    }
    received.batches += 1;
    received.events += Array.isArray(batch) ? batch.length : 0;
    response.writeHead(200).end();
  });
});
server.listen(env.PORT, '127.0.0.1', () => {
  console.log(`ready ${(server.address() as { port: number }).port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
