import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One verified delivery as the receiver saw it. */
export interface ReceivedDelivery {
  readonly id: string;
  /** The request's path and query, as the deliverer sent them. */
  readonly path: string;
  readonly contentType: string;
  readonly events: ReadonlyArray<{
    readonly id: string;
    readonly source: string;
    readonly type: string;
    /** The CloudEvents distributed-tracing extension, when the event's request was traced. */
    readonly traceparent?: string;
    readonly data: {
      readonly space_id: string;
      readonly global_position: number;
      readonly data: Record<string, unknown>;
    };
  }>;
}

/**
 * A webhook receiver as a SIEM's intake would be: verifies every request with the
 * `standardwebhooks` package (the spec's own verifier) and refuses what does not verify (401).
 * `answer` decides each verified request's status (500 to play a failing sink). `secret` may be
 * read at each request (a sink made through the API learns its secret after the receiver listens).
 */
export async function startWebhookReceiver(
  secret: string | (() => string),
  answer: (delivery: ReceivedDelivery) => number = () => 204,
) {
  const verifier = () => new Webhook(typeof secret === 'string' ? secret : secret());
  const deliveries: ReceivedDelivery[] = [];
  let refused = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let events: ReceivedDelivery['events'];
      try {
        events = verifier().verify(
          body,
          request.headers as Record<string, string>,
        ) as ReceivedDelivery['events'];
      } catch {
        refused += 1;
        response.writeHead(401).end();
        return;
      }
      const delivery = {
        id: String(request.headers['webhook-id']),
        path: String(request.url),
        contentType: String(request.headers['content-type']),
        events,
      };
      const status = answer(delivery);
      if (status >= 200 && status < 300) deliveries.push(delivery);
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/intake`,
    deliveries,
    refused: () => refused,
    /** Every event acknowledged, in the order received. */
    events: () => deliveries.flatMap((delivery) => delivery.events),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
