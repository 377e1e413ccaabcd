import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIpNetwork, networkContains, parseIpAddress } from './addresses.js';

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.1', 'public'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'cloud-metadata'],
    ['169.254.170.2', 'cloud-metadata'],
    ['100.100.100.200', 'cloud-metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['100.128.0.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.18.0.1', 'reserved'],
  ])('IPv4 %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::', 'unspecified'],
    ['fd00:ec2::254', 'cloud-metadata'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['4000::1', 'reserved'],
    ['64:ff9b:1::a00:1', 'private'],
  ])('IPv6 %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each([
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:7f00:1]', 'loopback'],
    ['::ffff:169.254.169.254', 'cloud-metadata'],
    ['::ffff:a9fe:a9fe', 'cloud-metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'cloud-metadata'],
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'],
  ])('an IPv6 form carrying IPv4, %s, is judged by that address: %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each([
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.0.0.1', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['017700000001', 'loopback'],
    ['127.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['3232235777', 'private'],
    ['2852039166', 'cloud-metadata'],
    ['0251.0376.0251.0376', 'cloud-metadata'],
    ['0', 'unspecified'],
    ['134744072', 'public'],
  ])('the decimal, octal or hex host %s is %s', (ip, kind) => {
    expect(classifyAddress(ip)).toBe(kind);
  });

  it.each(['example.com', 'localhost', '1.2.3.4.5', '256.1.1.1', '08.1.1.1', '1.2.3.4x', '::ffff:1.2.3.256', ''])('%s is not an IP address', (text) => {
    expect(classifyAddress(text)).toBeNull();
  });
});

describe('networks', () => {
  it('contain the addresses of their prefix, of their family only', () => {
    const network = parseIpNetwork('10.0.0.0/8')!;
    expect(networkContains(network, parseIpAddress('10.255.0.1')!)).toBe(true);
    expect(networkContains(network, parseIpAddress('11.0.0.1')!)).toBe(false);
    expect(networkContains(network, parseIpAddress('::ffff:10.0.0.1')!)).toBe(false);
    expect(networkContains(parseIpNetwork('172.16.0.0/12')!, parseIpAddress('172.31.0.1')!)).toBe(true);
    expect(networkContains(parseIpNetwork('fd00::/8')!, parseIpAddress('fd12::1')!)).toBe(true);
    expect(networkContains(parseIpNetwork('192.168.1.20')!, parseIpAddress('192.168.1.21')!)).toBe(false);
  });

  it('refuse prefixes longer than the address', () => {
    expect(parseIpNetwork('10.0.0.0/33')).toBeNull();
    expect(parseIpNetwork('::/129')).toBeNull();
    expect(parseIpNetwork('10.0.0.0/8/1')).toBeNull();
    expect(parseIpNetwork('example.com/8')).toBeNull();
  });
});
