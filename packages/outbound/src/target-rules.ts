import { addressBytes, cidrContains, embeddedIpv4, parseCidr } from './ip-address.js';

/** Where a sink sends: a webhook's URL, or a syslog receiver's host and port (TLS or not). */
export type OutboundTarget =
  | { readonly kind: 'webhook'; readonly url: string }
  | {
      readonly kind: 'syslog';
      readonly host: string;
      readonly port: number;
      readonly tls: boolean;
    };

/**
 * Where an outbound target (a sink, a JWKS URL) may point. A target makes this deployment send
 * requests to an address a user chose: without these rules it is a server-side request forgery
 * primitive (SSRF) into the network the sender runs in. The settings named below are
 * token-authority's; another service fills the same fields from its own.
 */
export interface TargetRules {
  /** NODE_ENV=production: TLS only, no loopback or private network (unless allowed below). */
  readonly production: boolean;
  /** ALLOW_HTTP_HOSTS: private names production may reach, over plain http too. */
  readonly allowHttpHosts: readonly string[];
  /**
   * SINK_ALLOW_TARGETS: host names and CIDR blocks production may reach though they are loopback
   * or private, and without TLS. Never the metadata service, never the service's own ports.
   */
  readonly allowTargets?: readonly string[];
  /** The service's own ports (PORT, METRICS_PORT, DELIVER_METRICS_PORT): never a sink on loopback. */
  readonly ownPorts: readonly number[];
}

/** Names that resolve to a cloud's instance metadata service (credentials live there). */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

/** Metadata services on addresses outside the link-local range: Alibaba's, AWS's IPv6 one. */
const METADATA_ADDRESSES = ['100.100.100.200', 'fd00:ec2::254'].map((address) =>
  String(addressBytes(address)),
);

/** What an address is, as far as the rules care (undefined: a public address or a name). */
type AddressKind =
  'metadata' | 'link-local' | 'unspecified' | 'loopback' | 'private' | 'shared' | 'unique-local';

/** Kinds from the gravest: an address of several kinds is judged as its gravest. */
const GRAVITY: readonly AddressKind[] = [
  'metadata',
  'link-local',
  'unspecified',
  'loopback',
  'private',
  'shared',
  'unique-local',
];

/** Refused in every environment: the metadata service's addresses. */
const ALWAYS_REFUSED: ReadonlySet<AddressKind> = new Set(['metadata', 'link-local', 'unspecified']);

/** Why production refuses each of the other kinds. */
const PRODUCTION_REASON: Readonly<Record<string, string>> = {
  loopback: "is loopback: in production a sink may not reach the deliverer's own host",
  private:
    'is a private address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, fec0::/10): in production a sink may not reach the private network',
  shared:
    'is in the shared address space (100.64.0.0/10, carrier-grade NAT): in production a sink may not reach it',
  'unique-local':
    'is a unique-local address (fc00::/7): in production a sink may not reach the private network',
};

/** A host as WHATWG URL normalises it (decimal, hex and short IPv4 forms become dotted quads). */
function normalisedHost(host: string): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}/`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return host.toLowerCase();
  }
}

/** The kind of an IPv4 address. */
function ipv4Kind(v4: readonly number[]): AddressKind | undefined {
  const [a = 0, b = 0] = v4;
  if (METADATA_ADDRESSES.includes(String(v4))) return 'metadata';
  if (a === 0) return 'unspecified';
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local';
  if (a === 100 && (b & 0xc0) === 64) return 'shared';
  if (a === 10 || (a === 172 && (b & 0xf0) === 16) || (a === 192 && b === 168)) return 'private';
  return undefined;
}

/** The kind of an IPv6 address; one carrying an IPv4 address is of that address's kind. */
function ipv6Kind(bytes: readonly number[]): { kind?: AddressKind; note?: string } {
  if (METADATA_ADDRESSES.includes(String(bytes))) return { kind: 'metadata' };
  if (bytes.every((byte) => byte === 0)) return { kind: 'unspecified' };
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1)
    return { kind: 'loopback' };
  const [first = 0, second = 0] = bytes;
  if (first === 0xfe && (second & 0xc0) === 0x80) return { kind: 'link-local' };
  if (first === 0xfe && (second & 0xc0) === 0xc0) return { kind: 'private' };
  if ((first & 0xfe) === 0xfc) return { kind: 'unique-local' };
  // NAT64's local-use prefix (64:ff9b:1::/48) translates into a network's own addresses.
  if ([0, 0x64, 0xff, 0x9b, 0, 1].every((byte, index) => bytes[index] === byte)) {
    return { kind: 'private', note: 'a local-use NAT64 address' };
  }
  // Every IPv4 address it carries (Teredo carries two), the gravest kind first.
  const carried = embeddedIpv4(bytes).flatMap(({ form, v4 }) => {
    const kind = ipv4Kind(v4);
    return kind ? [{ kind, note: `the ${form} form of ${v4.join('.')}` }] : [];
  });
  return carried.sort((a, b) => GRAVITY.indexOf(a.kind) - GRAVITY.indexOf(b.kind))[0] ?? {};
}

/** What a host (normalised) is: by its name for a name, by its bits for an address. */
function kindOf(host: string): { kind?: AddressKind; note?: string } {
  const name = host.replace(/\.$/, '');
  if (METADATA_NAMES.has(name)) return { kind: 'metadata' };
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'loopback' };
  const bytes = addressBytes(host);
  if (!bytes) return {};
  return bytes.length === 4 ? { kind: ipv4Kind(bytes) } : ipv6Kind(bytes);
}

/** The host and port a target reaches, and whether it goes without TLS. */
function addressOf(target: OutboundTarget): { host: string; port: number; plaintext: boolean } {
  if (target.kind === 'syslog') {
    return { host: target.host, port: target.port, plaintext: !target.tls };
  }
  const url = new URL(target.url);
  const secure = url.protocol === 'https:';
  return { host: url.hostname, port: Number(url.port || (secure ? 443 : 80)), plaintext: !secure };
}

/** Whether the operator names this host (the name the sink was given, not what it resolves to). */
function allowedName(host: string, rules: TargetRules): boolean {
  return [...rules.allowHttpHosts, ...(rules.allowTargets ?? [])].some(
    (allowed) => !allowed.includes('/') && normalisedHost(allowed) === host,
  );
}

/** Whether a CIDR block of SINK_ALLOW_TARGETS holds this address. */
function allowedAddress(address: string, rules: TargetRules): boolean {
  const bytes = addressBytes(address);
  if (!bytes) return false;
  return (rules.allowTargets ?? []).some((entry) => {
    const cidr = entry.includes('/') ? parseCidr(entry) : undefined;
    return cidr !== undefined && cidrContains(cidr, bytes);
  });
}

/** The address rules every environment applies: never the metadata service, never our own ports. */
function alwaysRefused(address: string, port: number, rules: TargetRules): string | undefined {
  const { kind, note } = kindOf(address);
  if (kind && ALWAYS_REFUSED.has(kind)) {
    const form = note ? ` (${note})` : '';
    return `${address}${form} is link-local or a metadata address: a sink may not reach the instance metadata service`;
  }
  if (kind === 'loopback' && rules.ownPorts.includes(port)) {
    return `${address}:${port} is this service's own port: a sink may not point at the API or its metrics`;
  }
  return undefined;
}

/**
 * What production adds: no loopback, private, shared (CGNAT) or unique-local address, in any
 * spelling, and TLS, unless the operator allowed the host (by name) or the address (by block).
 */
function productionRefused(
  address: string,
  where: { readonly host: string; readonly plaintext: boolean },
  rules: TargetRules,
): string | undefined {
  if (allowedName(where.host, rules) || allowedAddress(address, rules)) return undefined;
  const { kind, note } = kindOf(address);
  const reason = kind ? PRODUCTION_REASON[kind] : undefined;
  if (reason) {
    const form = note ? ` (${note})` : '';
    return `${address}${form} ${reason} (the operator may allow it in SINK_ALLOW_TARGETS)`;
  }
  return where.plaintext
    ? 'in production a sink must use TLS (a webhook https://, syslog "tls": true); name the host in SINK_ALLOW_TARGETS (or ALLOW_HTTP_HOSTS) to allow it without, on a private network'
    : undefined;
}

/**
 * Why a deployment refuses a sink's target, or undefined when it may be used. Refused anywhere:
 * the link-local range, metadata names and addresses (the cloud's credentials), in every spelling
 * (an IPv6 form carrying the IPv4 address included), and the service's own ports on loopback
 * (its API and its /metrics). In production also: a target without TLS, and loopback, private,
 * shared (CGNAT) and unique-local addresses, unless SINK_ALLOW_TARGETS (or ALLOW_HTTP_HOSTS)
 * allows the host or its address. A name is judged again by what it resolves to at each
 * connection ({@link resolvedAddressRefusal}).
 */
export function targetRefusal(target: OutboundTarget, rules: TargetRules): string | undefined {
  const where = addressOf(target);
  const host = normalisedHost(where.host);
  const always = alwaysRefused(host, where.port, rules);
  if (always || !rules.production) return always;
  return productionRefused(host, { host, plaintext: where.plaintext }, rules);
}

/** Where a sink's connection goes: the host it names, the port, and whether without TLS. */
export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
  /** No TLS on this connection (a syslog sink's `"tls": false`, an http:// webhook). */
  readonly plaintext?: boolean;
}

/**
 * The same address rules for the address a sink's host resolved to, at connect time: a name
 * checked when the sink was made may resolve elsewhere later (DNS rebinding), and is refused as
 * its literal would be (link-local and metadata always; in production loopback, private, shared
 * and unique-local unless allowed; the own ports anywhere).
 */
export function resolvedAddressRefusal(
  address: string,
  target: ConnectTarget,
  rules: TargetRules,
): string | undefined {
  const resolved = normalisedHost(address);
  const named = normalisedHost(target.host);
  const refused =
    alwaysRefused(resolved, target.port, rules) ??
    (rules.production
      ? productionRefused(resolved, { host: named, plaintext: target.plaintext === true }, rules)
      : undefined);
  if (!refused) return undefined;
  const which = named === resolved ? named : `${target.host} resolves to ${resolved}`;
  return `${which} at connect time: ${refused}`;
}
