import type { Server } from 'node:http';
import { ConfigError } from 'token-authority-settings';

/**
 * Listens on `port`; a port that cannot be had is a ConfigError naming `setting` (settings' one
 * class, the service's too): one line, not a stack trace, as a second server on one host meets it
 * first.
 */
export function listen(
  server: Server,
  port: number,
  host: string,
  setting: string,
): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL'
          ? new ConfigError([`${setting}: cannot listen on ${host}:${port} (${error.code})`])
          : error,
      ),
    );
    server.listen(port, host, () => resolve(server));
  });
}
