import http from 'node:http';
import net from 'node:net';

/** A peer that answers a byte at a time, and what it saw: requests, connections still open. */
export interface SlowDrip {
  readonly url: (path?: string) => string;
  readonly requests: () => number;
  readonly open: () => number;
  close(): Promise<void>;
}

/**
 * A local server answering every GET with a 200 and then one byte (a JSON space) every `everyMs`:
 * a fetch whose only bound is an idle timeout never ends. `tls`: a bare TCP server that drips a
 * TLS record's header and then a byte at a time, so an https client waits in its handshake.
 */
export async function slowDrip(
  options: { everyMs?: number; tls?: boolean } = {},
): Promise<SlowDrip> {
  const everyMs = options.everyMs ?? 1000;
  let requests = 0;
  const sockets = new Set<net.Socket>();
  const drip = (write: () => void, closed: (listener: () => void) => void) => {
    const timer = setInterval(write, everyMs);
    closed(() => clearInterval(timer));
  };
  const server = options.tls
    ? net.createServer((socket) => {
        requests += 1;
        socket.on('error', () => undefined);
        socket.write(Buffer.from([0x16, 0x03, 0x03, 0x3f, 0xff]));
        drip(
          () => socket.write(Buffer.from([0])),
          (listener) => socket.on('close', listener),
        );
      })
    : http.createServer((request, response) => {
        requests += 1;
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(' ');
        drip(
          () => response.write(' '),
          (listener) => response.on('close', listener),
        );
      });
  server.on('connection', (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: (path = '/jwks') => `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}${path}`,
    requests: () => requests,
    open: () => sockets.size,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves once `done()` holds, polling; rejects after `withinMs` (a generous bound). */
export async function until(done: () => boolean, withinMs = 10_000): Promise<void> {
  const end = Date.now() + withinMs;
  while (!done()) {
    if (Date.now() > end) throw new Error(`not so within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
