import type { SinkTarget } from '../domain/events.js';

/**
 * Where a sink may point. A sink makes this deployment send requests to an address an admin
 * chose: without these rules it is a server-side request forgery primitive (SSRF) into the
 * network the deliverer runs in.
 */
export interface TargetRules {
  /** NODE_ENV=production: https only, loopback refused (unless the host is allowed plain http). */
  readonly production: boolean;
  /** ALLOW_HTTP_HOSTS: private names production may reach over plain http. */
  readonly allowHttpHosts: readonly string[];
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

/** A host as WHATWG URL normalises it (decimal, hex and short IPv4 forms become dotted quads). */
function normalisedHost(host: string): string {
  const bracketed = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  try {
    return new URL(`http://${bracketed}/`).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return host.toLowerCase();
  }
}

/** The IPv4 address a host names (an IPv4-mapped IPv6 address included), or undefined. */
function ipv4Of(host: string): number[] | undefined {
  const mapped = /^::ffff:(.+)$/.exec(host)?.[1] ?? host;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(mapped);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return [high >> 8, high & 255, low >> 8, low & 255];
  }
  const parts = mapped.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  return parts.map(Number);
}

/** Link-local (169.254.0.0/16, fe80::/10: the metadata service's range), unspecified, or named so. */
function isLinkLocalOrMetadata(host: string): boolean {
  if (METADATA_NAMES.has(host.replace(/\.$/, ''))) return true;
  if (host === '::' || host === '0.0.0.0') return true;
  if (/^fe[89ab][0-9a-f]:/.test(host)) return true;
  const v4 = ipv4Of(host);
  return v4 !== undefined && ((v4[0] === 169 && v4[1] === 254) || v4[0] === 0);
}

/** Loopback: localhost, 127.0.0.0/8, ::1. */
function isLoopback(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost') || host === '::1') return true;
  return ipv4Of(host)?.[0] === 127;
}

/** The host and port a target reaches. */
function addressOf(target: SinkTarget): { host: string; port: number } {
  if (target.kind === 'syslog') return { host: target.host, port: target.port };
  const url = new URL(target.url);
  return { host: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
}

/** Whether ALLOW_HTTP_HOSTS names this host (the name the sink was given, not what it resolves to). */
function allowedHttp(host: string, rules: TargetRules): boolean {
  return rules.allowHttpHosts.some((allowed) => normalisedHost(allowed) === host);
}

/** The address rules every environment applies: never the metadata service, never our own ports. */
function alwaysRefused(address: string, port: number, rules: TargetRules): string | undefined {
  if (isLinkLocalOrMetadata(address)) {
    return `${address} is link-local or a metadata address: a sink may not reach the instance metadata service`;
  }
  if (isLoopback(address) && rules.ownPorts.includes(port)) {
    return `${address}:${port} is this service's own port: a sink may not point at the API or its metrics`;
  }
  return undefined;
}

/** The address rule production adds: not the deliverer's own host, unless its name is allowed. */
function productionRefused(address: string, allowed: boolean): string | undefined {
  return isLoopback(address) && !allowed
    ? `${address} is loopback: in production a sink may not reach the deliverer's own host`
    : undefined;
}

/**
 * Why a deployment refuses a sink's target, or undefined when it may be used. Refused: a host in
 * the link-local range or a metadata name (the cloud's credentials); in production plain http
 * (unless ALLOW_HTTP_HOSTS names the host) and loopback (another process of the deliverer's
 * host); anywhere, the service's own ports on loopback (its API and its /metrics).
 */
export function targetRefusal(target: SinkTarget, rules: TargetRules): string | undefined {
  const url = target.kind === 'webhook' ? new URL(target.url) : undefined;
  const where = addressOf(target);
  const host = normalisedHost(where.host);
  const allowed = allowedHttp(host, rules);
  const always = alwaysRefused(host, where.port, rules);
  if (always || !rules.production) return always;
  if (url && url.protocol !== 'https:' && !allowed) {
    return 'a webhook sink must be https:// (name the host in ALLOW_HTTP_HOSTS for plain http on a private network)';
  }
  return productionRefused(host, allowed);
}

/** Where a sink's connection goes: the host it names and the port it connects to. */
export interface ConnectTarget {
  readonly host: string;
  readonly port: number;
}

/**
 * The same address rules for the address a sink's host resolved to, at connect time: a name
 * checked when the sink was made may resolve elsewhere later (DNS rebinding), and is refused as
 * its literal would be (link-local always; loopback in production, the own ports anywhere).
 */
export function resolvedAddressRefusal(
  address: string,
  target: ConnectTarget,
  rules: TargetRules,
): string | undefined {
  const resolved = normalisedHost(address);
  const refused =
    alwaysRefused(resolved, target.port, rules) ??
    (rules.production
      ? productionRefused(resolved, allowedHttp(normalisedHost(target.host), rules))
      : undefined);
  if (!refused) return undefined;
  const named = normalisedHost(target.host);
  const which = named === resolved ? named : `${target.host} resolves to ${resolved}`;
  return `${which} at connect time: ${refused}`;
}
