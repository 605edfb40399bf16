import net from 'node:net';

/**
 * IP literals as bytes, for the sink target rules (target-rules.ts): an address is judged by its
 * bits, never by how it is spelt, and an IPv4 address carried inside an IPv6 one (mapped,
 * compatible, NAT64, 6to4, Teredo) is judged as that IPv4 address.
 */

/** An IP literal's bytes: 4 for IPv4, 16 for IPv6; undefined for anything else (a name). */
export function addressBytes(literal: string): number[] | undefined {
  const host = literal.replace(/^\[(.*)\]$/, '$1');
  if (net.isIPv4(host)) return host.split('.').map(Number);
  if (!net.isIPv6(host)) return undefined;
  // A trailing dotted quad is the last two groups.
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(host);
  const hex = quad
    ? `${quad[1]}${quad[2]!
        .split('.')
        .map(Number)
        .reduce<string[]>((groups, byte, index) => {
          if (index % 2 === 0) groups.push('');
          groups[groups.length - 1] += byte.toString(16).padStart(2, '0');
          return groups;
        }, [])
        .join(':')}`
    : host;
  const [head = '', tail] = hex.split('::');
  const groupsOf = (part: string) => (part === '' ? [] : part.split(':'));
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 255];
  });
}

const startsWith = (bytes: readonly number[], prefix: readonly number[]) =>
  prefix.every((byte, index) => bytes[index] === byte);

const ZEROS = (count: number) => Array<number>(count).fill(0);

/**
 * The IPv4 address an IPv6 address carries, and in which form: IPv4-mapped (::ffff:0:0/96),
 * IPv4-translated (::ffff:0:0:0/96), IPv4-compatible (::/96, :: and ::1 aside), NAT64 (64:ff9b::/96), 6to4 (2002::/16) and Teredo
 * (2001::/32, its server in bits 32-63 and its client, XORed, in the last 32). Each is a way to
 * reach that IPv4 address; an address is judged by every one it carries.
 */
export function embeddedIpv4(bytes: readonly number[]): { form: string; v4: number[] }[] {
  if (bytes.length !== 16) return [];
  const last = bytes.slice(12, 16);
  if (startsWith(bytes, [...ZEROS(10), 255, 255])) return [{ form: 'IPv4-mapped', v4: last }];
  if (startsWith(bytes, [...ZEROS(8), 255, 255, 0, 0])) {
    return [{ form: 'IPv4-translated', v4: last }];
  }
  if (startsWith(bytes, ZEROS(12)) && (last[0]! | last[1]! | last[2]!) !== 0) {
    return [{ form: 'IPv4-compatible', v4: last }];
  }
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...ZEROS(8)])) return [{ form: 'NAT64', v4: last }];
  if (startsWith(bytes, [0x20, 0x02])) return [{ form: '6to4', v4: bytes.slice(2, 6) }];
  if (startsWith(bytes, [0x20, 0x01, 0, 0])) {
    return [
      { form: 'Teredo', v4: bytes.slice(4, 8) },
      { form: 'Teredo', v4: last.map((byte) => byte ^ 255) },
    ];
  }
  return [];
}

/** A CIDR block (`10.0.0.0/8`, `fd00::/8`) or one address (`10.0.0.5`); undefined if neither. */
export interface Cidr {
  readonly bytes: readonly number[];
  readonly prefix: number;
}

/** Parses `address[/prefix]`; undefined when it is not an IP block. */
export function parseCidr(text: string): Cidr | undefined {
  const [address = '', prefixText, extra] = text.trim().split('/');
  const bytes = addressBytes(address);
  if (!bytes || extra !== undefined) return undefined;
  const bits = bytes.length * 8;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  return prefix <= bits ? { bytes, prefix } : undefined;
}

/**
 * Whether the block holds these bytes: an IPv4 block also holds an IPv6 form carrying one, when
 * it holds every IPv4 address the form carries (a Teredo address's server and client both).
 */
export function cidrContains(cidr: Cidr, bytes: readonly number[]): boolean {
  const candidates =
    cidr.bytes.length === bytes.length
      ? [bytes]
      : cidr.bytes.length === 4
        ? embeddedIpv4(bytes).map((entry) => entry.v4)
        : [];
  return (
    candidates.length > 0 &&
    candidates.every((candidate) => {
      for (let bit = 0; bit < cidr.prefix; bit += 1) {
        const mask = 0x80 >> (bit % 8);
        const index = Math.floor(bit / 8);
        if ((candidate[index]! & mask) !== (cidr.bytes[index]! & mask)) return false;
      }
      return true;
    })
  );
}
