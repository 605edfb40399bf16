import type { Server } from 'node:http';
import { WitnessSetupError } from './setup-error.js';

/** Listens on `port`; a port that cannot be had is a WitnessSetupError naming `setting`. */
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
          ? new WitnessSetupError([`${setting}: cannot listen on ${host}:${port} (${error.code})`])
          : error,
      ),
    );
    server.listen(port, host, () => resolve(server));
  });
}
