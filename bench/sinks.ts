import { z } from 'zod';
import { newWebhookSecret } from '../packages/outbound/src/standard-webhooks.js';
import { freePort } from '../src/net/free-port.js';
import { startProcess, waitFor } from './processes.js';

const receivedSchema = z.object({
  events: z.number().int(),
  batches: z.number().int(),
  refused: z.number().int(),
});
/** What the bench's live webhook receiver took (bench/webhook-receiver.ts). */
export type Received = z.infer<typeof receivedSchema>;

/**
 * `--sinks`: the two operator sinks the service delivers to while it is measured, as AUDIT_SINKS.
 * One a webhook receiver answering 200, in a process of the bench's own (not under npm start, so
 * its CPU is never the service's); one dead, a loopback port nothing listens on, so the deliverer
 * retries, backs off and pauses it as it would a SIEM that is down.
 */
export async function startBenchSinks(): Promise<{
  readonly auditSinks: string;
  readonly deadPort: number;
  readonly received: () => Promise<Received>;
}> {
  const secret = newWebhookSecret();
  const [receiverPort, deadPort] = [await freePort(), await freePort()];
  startProcess('bench/webhook-receiver.ts', {
    PORT: String(receiverPort),
    WEBHOOK_SECRET: secret,
  });
  const base = `http://127.0.0.1:${receiverPort}`;
  await waitFor(`${base}/received`);
  const auditSinks = JSON.stringify([
    { id: 'bench-webhook', kind: 'webhook', url: `${base}/intake`, secret },
    { id: 'bench-dead', kind: 'webhook', url: `http://127.0.0.1:${deadPort}/intake`, secret },
  ]);
  return {
    auditSinks,
    deadPort,
    received: async () => receivedSchema.parse(await (await fetch(`${base}/received`)).json()),
  };
}
