import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { MAX_SET_BYTES, SignalRefused } from './signals.js';
import { boundedText } from './status-lists.js';
import type { Verifier } from './verifier.js';

const tooLarge = (): never => {
  throw new SignalRefused('invalid_request', 'the SET is too large');
};

/** RFC 8935 §2.2-2.3: 202 with no body, or 400 `{err, description}` in English. */
function answerOf(error: unknown): { status: number; body?: string } {
  if (!(error instanceof SignalRefused)) throw error;
  return { status: 400, body: JSON.stringify({ err: error.err, description: error.message }) };
}

const errorHeaders = { 'content-type': 'application/json', 'content-language': 'en' };

/**
 * A pushed SET of a fetch-style `Request` (Web API runtimes) taken by `verifier.receiveSignal`,
 * answered as RFC 8935 asks: 202 with an empty body, or 400 with `{err, description}`.
 */
export async function signalResponse(verifier: Verifier, request: Request): Promise<Response> {
  try {
    await verifier.receiveSignal({
      contentType: request.headers.get('content-type') ?? undefined,
      authorization: request.headers.get('authorization') ?? undefined,
      body: await boundedText(request, MAX_SET_BYTES, tooLarge),
    });
    return new Response(null, { status: 202 });
  } catch (error) {
    const { status, body } = answerOf(error);
    return new Response(body, { status, headers: errorHeaders });
  }
}

/** The same for Node's `http` (Express and Koa hand their raw request and response to it). */
export function nodeSignalHandler(verifier: Verifier) {
  return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const body = Readable.toWeb(request) as ReadableStream<Uint8Array>;
    try {
      await verifier.receiveSignal({
        contentType: request.headers['content-type'],
        authorization: request.headers.authorization,
        body: await boundedText({ body }, MAX_SET_BYTES, tooLarge),
      });
      response.writeHead(202).end();
    } catch (error) {
      const { status, body: answer } = answerOf(error);
      response.writeHead(status, errorHeaders).end(answer);
    }
  };
}
