import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Resolver } from '../src/guarded-lookup.js';
import { newWebhookSecret } from '../src/standard-webhooks.js';
import type { TargetRules } from '../src/target-rules.js';
import { DeliveryError } from '../src/transport.js';
import { ANSWER_BYTES_READ } from '../src/webhook-post.js';
import { webhookTransport } from '../src/webhook.js';
import { startWebhookReceiver } from './webhook-receiver.js';

/**
 * Issue 43 (DNS rebinding): the webhook sink connects through the guarded lookup, so a name that
 * passed the target rules when the sink was made is checked again at each connection.
 */
const development: TargetRules = { production: false, allowHttpHosts: [], ownPorts: [] };
const production: TargetRules = { ...development, production: true };
const issuer = 'https://auth.example.test';
const app = 'token-authority';

/** A name that now resolves to these addresses, the receiver's loopback first. */
const rebinding =
  (...addresses: string[]): Resolver =>
  (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

/** A bare HTTP server: counts requests and connections, answers as `handle` says. */
async function server(
  handle: (request: http.IncomingMessage, response: http.ServerResponse) => void,
) {
  let requests = 0;
  let connections = 0;
  let closed = 0;
  const listening = http.createServer((request, response) => {
    requests += 1;
    request.resume();
    request.on('end', () => handle(request, response));
  });
  listening.on('connection', (socket) => {
    connections += 1;
    socket.on('close', () => (closed += 1));
  });
  await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
  const { port } = listening.address() as AddressInfo;
  return {
    port,
    requests: () => requests,
    connections: () => connections,
    closed: () => closed,
    close: () =>
      new Promise<void>((resolve) => {
        listening.closeAllConnections();
        listening.close(() => resolve());
      }),
  };
}

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

describe('the webhook sink at connect time', () => {
  it('refuses a name that now resolves to a link-local address, and sends nothing', async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret);
    cleanups.push(receiver.close);
    const { port } = new URL(receiver.url);
    const transport = webhookTransport({
      url: `http://sink.example:${port}/intake`,
      secret,
      issuer,
      app,
      timeoutMs: 2000,
      rules: development,
      // Loopback first: had only the first address been checked, the POST would land.
      resolve: rebinding('127.0.0.1', '169.254.169.254'),
    });
    cleanups.push(transport.close);
    const refused = transport.probe();
    await expect(refused).rejects.toBeInstanceOf(DeliveryError);
    await expect(refused).rejects.toThrow(
      /^webhook unreachable: sink\.example resolves to 169\.254\.169\.254 at connect time: .*link-local/,
    );
    expect(receiver.deliveries.length + receiver.refused()).toBe(0);
  });

  it('in production refuses a name resolving to loopback (localhost, by the system resolver), sends nothing; in development delivers, signed', async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret);
    cleanups.push(receiver.close);
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    const options = { url, secret, issuer, app, timeoutMs: 2000 };
    const guarded = webhookTransport({ ...options, rules: production });
    cleanups.push(guarded.close);
    await expect(guarded.probe()).rejects.toThrow(
      /^webhook unreachable: localhost resolves to 127\.0\.0\.1 at connect time: .*loopback/,
    );
    expect(receiver.deliveries.length + receiver.refused()).toBe(0);

    const allowed = webhookTransport({ ...options, rules: development });
    cleanups.push(allowed.close);
    await allowed.probe();
    expect(receiver.deliveries).toHaveLength(1);
    expect(receiver.refused()).toBe(0);
  });

  it('refuses an IP literal the rules forbid, which no lookup would see', async () => {
    const target = await server((_request, response) => response.writeHead(204).end());
    cleanups.push(target.close);
    const transport = webhookTransport({
      url: `http://127.0.0.1:${target.port}/`,
      secret: newWebhookSecret(),
      issuer,
      app,
      timeoutMs: 2000,
      rules: production,
    });
    cleanups.push(transport.close);
    await expect(transport.probe()).rejects.toThrow(/loopback/);
    expect(target.connections()).toBe(0);
  });

  it('does not follow a redirect: a 3xx is an error and its Location gets nothing', async () => {
    const elsewhere = await server((_request, response) => response.writeHead(204).end());
    const redirecting = await server((_request, response) =>
      response.writeHead(307, { location: `http://127.0.0.1:${elsewhere.port}/` }).end(),
    );
    cleanups.push(elsewhere.close, redirecting.close);
    const transport = webhookTransport({
      url: `http://127.0.0.1:${redirecting.port}/`,
      secret: newWebhookSecret(),
      issuer,
      app,
      timeoutMs: 2000,
      rules: development,
    });
    cleanups.push(transport.close);
    await expect(transport.probe()).rejects.toThrow(/^webhook answered HTTP 307$/);
    expect(redirecting.requests()).toBe(1);
    expect(elsewhere.connections()).toBe(0);
  });

  it('keeps one connection for successive POSTs and closes it on close()', async () => {
    const target = await server((_request, response) => response.writeHead(200).end('ok'));
    cleanups.push(target.close);
    const transport = webhookTransport({
      url: `http://127.0.0.1:${target.port}/`,
      secret: newWebhookSecret(),
      issuer,
      app,
      timeoutMs: 2000,
      rules: development,
    });
    await transport.probe();
    await transport.probe();
    await transport.probe();
    expect(target.requests()).toBe(3);
    expect(target.connections()).toBe(1);
    transport.close();
    await expect.poll(target.closed).toBe(1);
  });

  it('reads a bounded part of an endless answer, then drops the connection; the 2xx stands', async () => {
    let written = 0;
    const target = await server((_request, response) => {
      response.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 120);
      const more = () => {
        for (let flowing = true; flowing && !response.destroyed;) {
          flowing = response.write(chunk);
          written += chunk.length;
        }
        if (!response.destroyed) response.once('drain', more);
      };
      more();
    });
    cleanups.push(target.close);
    const transport = webhookTransport({
      url: `http://127.0.0.1:${target.port}/`,
      secret: newWebhookSecret(),
      issuer,
      app,
      // Far beyond the test's own bound: the probe resolves because the read stopped, not timed out.
      timeoutMs: 120_000,
      rules: development,
    });
    cleanups.push(transport.close);
    await transport.probe();
    expect(written).toBeGreaterThan(ANSWER_BYTES_READ);
    await expect.poll(target.closed).toBe(1);
  });

  it('bounds an attempt that gets no answer by its timeout', async () => {
    const target = await server(() => undefined);
    cleanups.push(target.close);
    const transport = webhookTransport({
      url: `http://127.0.0.1:${target.port}/`,
      secret: newWebhookSecret(),
      issuer,
      app,
      timeoutMs: 100,
      rules: development,
    });
    cleanups.push(transport.close);
    await expect(transport.probe()).rejects.toThrow(
      /^webhook unreachable: no answer within 100 ms$/,
    );
    expect(target.requests()).toBe(1);
  });

  it('fails a closed port and an open port that speaks neither HTTP nor TLS with one class, the detail only in the message (issue 51, item 5)', async () => {
    // An open port that is not a web server: it greets, as SSH or Redis would, and hangs up.
    const sockets = new Set<net.Socket>();
    const talker = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    });
    await new Promise<void>((resolve) => talker.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => talker.close(resolve));
    });
    const open = (talker.address() as AddressInfo).port;
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const failureAt = async (url: string) => {
      const transport = webhookTransport({
        url,
        secret: newWebhookSecret(),
        issuer,
        app,
        timeoutMs: 2000,
        rules: development,
      });
      cleanups.push(transport.close);
      const error = await transport.probe().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error, url).toBeInstanceOf(DeliveryError);
      return error as DeliveryError;
    };
    const failures = await Promise.all([
      failureAt(`http://127.0.0.1:${closed}/`),
      failureAt(`http://127.0.0.1:${open}/`),
      failureAt(`https://127.0.0.1:${closed}/`),
      failureAt(`https://127.0.0.1:${open}/`),
    ]);
    expect(failures.map((failure) => failure.failure)).toEqual([
      'connect_failed',
      'connect_failed',
      'connect_failed',
      'connect_failed',
    ]);
    // The operator's log still tells them apart.
    expect(failures[0]!.message).toMatch(/ECONNREFUSED/);
    expect(failures[1]!.message).not.toMatch(/ECONNREFUSED/);

    // A target the rules refuse is a class of its own, the same for a literal and a name.
    const literal = webhookTransport({
      url: 'https://10.0.0.5/',
      secret: newWebhookSecret(),
      issuer,
      app,
      timeoutMs: 2000,
      rules: production,
    });
    cleanups.push(literal.close);
    await expect(literal.probe()).rejects.toMatchObject({ failure: 'refused_target' });
  });
});
