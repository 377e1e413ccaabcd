import { isIPv6 } from 'node:net';

/**
 * What kind of destination an IP address is. Everything but `public` is refused for URLs a tenant supplied, unless
 * the operator allowed it (`ENGRAM_EGRESS_ALLOW`).
 */
export type AddressClass =
  | 'public'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'shared'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'cloud-metadata';

/** An address as its bytes: 4 for IPv4, 16 for IPv6. */
export type IpAddress = { version: 4 | 6; bytes: Uint8Array };

/** A CIDR network: the first `prefix` bits of `bytes`. */
export type IpNetwork = IpAddress & { prefix: number };

/** One IPv4 part as the WHATWG URL parser (and inet_aton) read it: decimal, octal with a leading 0, or hex with 0x. */
function ipv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return Number.parseInt(part.slice(1), 8);
  if (/^(0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/**
 * IPv4 in every form a host may take: `127.0.0.1`, `2130706433`, `0177.0.0.1`, `0x7f.1`; the last part fills the
 * remaining bytes, as `new URL()` and inet_aton have it.
 */
function parseIpv4(text: string): Uint8Array | null {
  const parts = text.endsWith('.') ? text.slice(0, -1).split('.') : text.split('.');
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers = parts.map(ipv4Part);
  if (numbers.some((value) => value === null)) return null;
  const values = numbers as number[];
  const last = values.pop()!;
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return null;
  let whole = last;
  values.forEach((value, index) => (whole += value * 256 ** (3 - index)));
  return Uint8Array.of(whole >>> 24, (whole >>> 16) & 255, (whole >>> 8) & 255, whole & 255);
}

function parseIpv6(text: string): Uint8Array | null {
  const bare = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!isIPv6(bare)) return null;
  // An IPv4 tail (`::ffff:127.0.0.1`) is two groups written another way.
  const hex = bare.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_match, a: string, b: string, c: string, d: string) =>
    [[a, b], [c, d]].map(([high, low]) => ((Number(high) << 8) | Number(low)).toString(16)).join(':'),
  );
  const [left = '', right] = hex.split('::');
  const leftGroups = left === '' ? [] : left.split(':');
  const rightGroups = right === undefined || right === '' ? [] : right.split(':');
  const zeros = right === undefined ? 0 : 8 - leftGroups.length - rightGroups.length;
  const groups = [...leftGroups, ...Array<string>(zeros).fill('0'), ...rightGroups];
  if (groups.length !== 8) return null;
  return Uint8Array.from(
    groups.flatMap((group) => {
      const value = Number.parseInt(group, 16);
      return [value >> 8, value & 255];
    }),
  );
}

/** The address a host names when it is a literal IP (any IPv4 form, IPv6 with or without brackets), else null. */
export function parseIpAddress(text: string): IpAddress | null {
  const v6 = text.includes(':') ? parseIpv6(text) : null;
  if (v6) return { version: 6, bytes: v6 };
  const v4 = text.includes(':') ? null : parseIpv4(text);
  return v4 ? { version: 4, bytes: v4 } : null;
}

/** `10.0.0.0/8`, `fd00::/8`, or a single address (its whole length). */
export function parseIpNetwork(text: string): IpNetwork | null {
  const [address = '', prefixText, ...rest] = text.split('/');
  if (rest.length > 0) return null;
  const parsed = parseIpAddress(address);
  if (!parsed) return null;
  const maxPrefix = parsed.bytes.length * 8;
  if (prefixText === undefined) return { ...parsed, prefix: maxPrefix };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > maxPrefix) return null;
  return { ...parsed, prefix: Number(prefixText) };
}

export function networkContains(network: IpNetwork, address: IpAddress): boolean {
  if (network.version !== address.version) return false;
  for (let bit = 0; bit < network.prefix; bit += 8) {
    const bits = Math.min(8, network.prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((network.bytes[bit / 8]! & mask) !== (address.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

function table(entries: Array<[string, AddressClass]>): Array<[IpNetwork, AddressClass]> {
  return entries.map(([cidr, kind]) => [parseIpNetwork(cidr)!, kind]);
}

/** First match wins: the metadata endpoints come before the ranges that hold them. */
const IPV4_RANGES = table([
  ['169.254.169.254/32', 'cloud-metadata'], // AWS, GCP, Azure, OCI, DigitalOcean, …
  ['169.254.170.2/32', 'cloud-metadata'], // AWS ECS task metadata
  ['100.100.100.200/32', 'cloud-metadata'], // Alibaba Cloud
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'reserved'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'reserved'],
  ['198.51.100.0/24', 'reserved'],
  ['203.0.113.0/24', 'reserved'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

const IPV6_RANGES = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fd00:ec2::254/128', 'cloud-metadata'], // AWS over IPv6
  ['64:ff9b:1::/48', 'private'], // local-use NAT64 (RFC 8215)
  ['100::/64', 'reserved'], // discard
  ['2001:db8::/32', 'reserved'], // documentation
  ['2001::/23', 'reserved'], // IETF protocol assignments, Teredo among them
  ['3fff::/20', 'reserved'], // documentation
  ['5f00::/16', 'reserved'], // segment routing
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'], // deprecated site-local
  ['ff00::/8', 'multicast'],
]);

/** IPv6 forms that carry an IPv4 address, and where: mapped, compatible, NAT64, 6to4. */
const EMBEDDED_IPV4 = [
  { network: parseIpNetwork('::ffff:0:0/96')!, offset: 12 },
  { network: parseIpNetwork('::/96')!, offset: 12 },
  { network: parseIpNetwork('64:ff9b::/96')!, offset: 12 },
  { network: parseIpNetwork('2002::/16')!, offset: 2 },
];

const GLOBAL_UNICAST = parseIpNetwork('2000::/3')!;

/** The class of a parsed address (see `classifyAddress`). */
export function classifyIpAddress(address: IpAddress): AddressClass {
  if (address.version === 4) return IPV4_RANGES.find(([network]) => networkContains(network, address))?.[1] ?? 'public';
  const special = IPV6_RANGES.find(([network]) => networkContains(network, address));
  if (special) return special[1];
  const carried = embeddedIpv4(address);
  if (carried) return classifyIpAddress(carried);
  return networkContains(GLOBAL_UNICAST, address) ? 'public' : 'reserved';
}

/**
 * The class of an IP address in any of its spellings (IPv4 in decimal, octal or hex parts, IPv6 with an IPv4 tail,
 * IPv4-mapped, -compatible, NAT64 and 6to4 forms judged by the IPv4 address they carry). Not an IP address: null.
 */
export function classifyAddress(ip: string): AddressClass | null {
  const parsed = parseIpAddress(ip);
  return parsed ? classifyIpAddress(parsed) : null;
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, NAT64, 6to4), so operator networks match either form. */
export function embeddedIpv4(address: IpAddress): IpAddress | null {
  if (address.version === 4) return null;
  const embedded = EMBEDDED_IPV4.find(({ network }) => networkContains(network, address));
  return embedded ? { version: 4, bytes: address.bytes.slice(embedded.offset, embedded.offset + 4) } : null;
}
