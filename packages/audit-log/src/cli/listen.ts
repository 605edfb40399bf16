import type { Server } from 'node:http';
import { ConfigError } from 'token-authority-settings';

/**
 * Listens on `port`; a port that cannot be had is refused as `refused` makes it (by default a
 * ConfigError) naming `setting`: one line, not a stack trace, as a second server on one
 * host meets it first.
 */
export function listen(
  server: Server,
  port: number,
  host: string,
  setting: string,
  refused: (problem: string) => Error = (problem) => new ConfigError([problem]),
): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL'
          ? refused(`${setting}: cannot listen on ${host}:${port} (${error.code})`)
          : error,
      ),
    );
    server.listen(port, host, () => resolve(server));
  });
}
