/**
 * The bench's live audit sink (`npm run bench -- --sinks`): a webhook intake in a process of its
 * own, so its CPU is never counted as the service's. Like a SIEM's intake queue it acknowledges a
 * batch once it holds it (200) and does the rest later: `GET /received` verifies every batch held
 * so far with `standardwebhooks` (the spec's verifier) and says how many events and batches it
 * took and how many it refused, so the bench shows that delivery really ran, signed, during the
 * load. A SIEM's intake is another machine's CPU: on the bench's two cores it runs at the lowest
 * priority and keeps the verifying out of the measured runs (the bench asks once they are over).
 * Settings: PORT, WEBHOOK_SECRET. Prints "ready <port>" when listening.
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
/** Batches acknowledged and not yet verified: their bodies and signature headers. */
let held: { body: string; headers: Record<string, string> }[] = [];

const verifyHeld = () => {
  for (const { body, headers } of held) {
    try {
      const batch = verifier.verify(body, headers);
      received.batches += 1;
      received.events += Array.isArray(batch) ? batch.length : 0;
    } catch {
      // Unsigned or wrongly signed: counted, and the bench's report shows it.
      received.refused += 1;
    }
  }
  held = [];
};

const server = http.createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/received') {
    verifyHeld();
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    held.push({
      body: Buffer.concat(chunks).toString('utf8'),
      headers: request.headers as Record<string, string>,
    });
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
