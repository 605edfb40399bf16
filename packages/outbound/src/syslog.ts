import net from 'node:net';
import tls from 'node:tls';
import { guardedLookup, literalRefusal, type Resolver } from './guarded-lookup.js';
import type { Sender } from './outbound-event.js';
import { octetCounted, syslogMessage } from './syslog-message.js';
import type { TargetRules } from './target-rules.js';
import { connectFailure, DeliveryError, type Transport } from './transport.js';

/** Options of {@link syslogTransport}. */
export interface SyslogOptions extends Sender {
  readonly host: string;
  readonly port: number;
  /** RFC 5425: TLS, the server's certificate checked against `ca` (or the system's roots). */
  readonly tls: boolean;
  readonly ca?: string | Buffer;
  /** Each attempt's bound (connect, then write and flush). */
  readonly timeoutMs: number;
  /** This deployment's sink target rules: each connection is checked against them again. */
  readonly rules: TargetRules;
  /** Defaults to `dns.lookup` (a test plays a name that rebinds). */
  readonly resolve?: Resolver;
}

/**
 * Delivers batches as RFC 5424 messages, octet-counted (RFC 6587) over one kept TCP or TLS
 * connection. Syslog has no acknowledgement: a batch counts as delivered once it was written,
 * flushed to the kernel, and the connection still stood after it; any error drops the connection
 * and the batch is sent again on a new one (receivers deduplicate on the event id).
 */
export function syslogTransport(options: SyslogOptions): Transport {
  let socket: net.Socket | undefined;
  let broken: Error | undefined;
  // A name checked when the sink was made may resolve elsewhere later (DNS rebinding).
  const guard = {
    host: options.host,
    port: options.port,
    plaintext: !options.tls,
    rules: options.rules,
    resolve: options.resolve,
  };
  const lookup = guardedLookup(guard);

  const drop = () => {
    socket?.destroy();
    socket = undefined;
  };

  const connect = () =>
    new Promise<net.Socket>((resolve, reject) => {
      broken = undefined;
      const literal = literalRefusal(guard);
      if (literal) {
        return reject(new DeliveryError('refused_target', `syslog connection failed: ${literal}`));
      }
      const opened = options.tls
        ? tls.connect({
            host: options.host,
            port: options.port,
            ca: options.ca,
            servername: net.isIP(options.host) ? undefined : options.host,
            lookup,
          })
        : net.connect({ host: options.host, port: options.port, lookup });
      const event = options.tls ? 'secureConnect' : 'connect';
      const timer = setTimeout(() => {
        opened.destroy();
        reject(
          new DeliveryError('timeout', `syslog connect timed out after ${options.timeoutMs} ms`),
        );
      }, options.timeoutMs);
      opened.once(event, () => {
        clearTimeout(timer);
        opened.setNoDelay(true);
        opened.setKeepAlive(true, 10_000);
        resolve(opened);
      });
      opened.on('error', (error) => {
        clearTimeout(timer);
        broken ??= error;
        reject(
          new DeliveryError(connectFailure(error), `syslog connection failed: ${error.message}`, {
            cause: error,
          }),
        );
      });
      // The receiver says nothing on this connection; whatever arrives is read and dropped.
      opened.on('data', () => undefined);
      opened.on('close', () => {
        broken ??= new Error('connection closed by the receiver');
        if (socket === opened) socket = undefined;
      });
    });

  const write = (target: net.Socket, bytes: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          new DeliveryError('timeout', `syslog write not flushed after ${options.timeoutMs} ms`),
        );
      }, options.timeoutMs);
      target.write(bytes, (error) => {
        clearTimeout(timer);
        if (error)
          reject(new DeliveryError('connection_lost', `syslog write failed: ${error.message}`));
        else resolve();
      });
    });

  const sendFrames = async (bytes: Buffer) => {
    try {
      socket ??= await connect();
      await write(socket, bytes);
      // One turn of the event loop: a reset the kernel already saw is reported before we say done.
      await new Promise((resolve) => setImmediate(resolve));
      if (broken || !socket || socket.destroyed) {
        throw new DeliveryError(
          'connection_lost',
          `syslog connection lost: ${broken?.message ?? 'closed'}`,
        );
      }
    } catch (error) {
      drop();
      throw error instanceof DeliveryError
        ? error
        : new DeliveryError(connectFailure(error), String(error));
    }
  };

  return {
    async send(batch) {
      if (batch.events.length === 0) return;
      await sendFrames(
        Buffer.concat(
          batch.events.map((event) =>
            octetCounted(syslogMessage(event, options, batch.traces?.get(event.globalPosition))),
          ),
        ),
      );
    },
    async probe() {
      drop();
      socket = await connect();
    },
    close: drop,
  };
}
