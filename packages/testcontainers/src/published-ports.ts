/**
 * Where the containers' ports are published. testcontainers publishes on every interface of the
 * engine's host; the service here trusts the development login key (anyone who reaches it mints
 * admin tokens) and Postgres answers as its owner, so a laptop on a café's network would serve
 * both to the room. They are published on the one address the test reaches them at instead.
 */
import { networkInterfaces } from 'node:os';
import { isIP } from 'node:net';
import { GenericContainer } from 'testcontainers';

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

/**
 * The host address to publish on, given the host testcontainers reaches the engine's ports at:
 * loopback for a local engine, the bridge's address when the tests run in a container beside it
 * (an address of this machine), or `undefined` (every interface) for an engine on another
 * machine, whose ports must be reachable from here.
 */
export function publishAddress(
  engineHost: string,
  localAddresses: readonly string[] = ownAddresses(),
): string | undefined {
  if (LOOPBACK_NAMES.has(engineHost.toLowerCase())) return '127.0.0.1';
  if (isIP(engineHost) !== 0 && localAddresses.includes(engineHost)) return engineHost;
  return undefined;
}

function ownAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).map((entry) => entry.address),
  );
}

/** A GenericContainer whose published ports listen on one host address (when one is given). */
export class PublishedContainer extends GenericContainer {
  private hostIp: string | undefined;

  /** Publish every exposed port on `hostIp` only; `undefined` leaves testcontainers' default. */
  publishedOn(hostIp: string | undefined): this {
    this.hostIp = hostIp;
    return this;
  }

  // testcontainers builds PortBindings without a HostIp (every interface); the engine takes one
  // per binding, and testcontainers still finds the port by the address's family.
  protected override async beforeContainerCreated(): Promise<void> {
    const hostIp = this.hostIp;
    if (!hostIp) return;
    const bindings = this.hostConfig.PortBindings as
      Record<string, Array<{ HostPort?: string; HostIp?: string }>> | undefined;
    for (const [port, list] of Object.entries(bindings ?? {})) {
      bindings![port] = list.map((binding) => ({ ...binding, HostIp: hostIp }));
    }
  }
}
