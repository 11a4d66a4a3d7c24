import { describe, expect, it } from 'vitest';
import {
  addressRefusal,
  blockedHostReason,
  checksAddressesOf,
  hostRefusal,
  isInternalIp,
  NO_ALLOWED_HOSTS,
  parseAllowedHosts,
  type AllowedHosts,
} from '../../src/subscriptions/core/outbound-address.js';

const allow = (value: string): AllowedHosts => {
  const parsed = parseAllowedHosts(value);
  if ('error' in parsed) throw new Error(`cannot read ${parsed.error}`);
  return parsed;
};

describe('isInternalIp', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '224.0.0.1',
    '240.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '192.0.2.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:a00:1',
    '::FFFF:169.254.169.254',
  ])('%s is internal', (ip) => {
    expect(isInternalIp(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '169.255.0.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '2a00:1450::1',
  ])('%s is public', (ip) => {
    expect(isInternalIp(ip)).toBe(false);
  });

  it('a name or nonsense is no address', () => {
    expect(isInternalIp('localhost')).toBe(false);
    expect(isInternalIp('')).toBe(false);
  });
});

describe('blockedHostReason', () => {
  it.each([
    ['localhost', 'Local/Loopback host not allowed'],
    ['LOCALHOST.', 'Local/Loopback host not allowed'],
    ['127.0.0.1', 'Local/Loopback host not allowed'],
    ['[::1]', 'Local/Loopback host not allowed'],
    ['169.254.169.254', 'Local/metadata host'],
    ['metadata.google.internal', 'Local/metadata host'],
    ['db.internal', 'Internal domain pattern blocked: .internal'],
    ['printer.local', 'Internal domain pattern blocked: .local'],
    ['api.svc.cluster.local', 'Internal domain pattern blocked: .local'],
    ['vault.service.consul', 'Internal domain pattern blocked: .consul'],
    ['nas.home.arpa.', 'Internal domain pattern blocked: .home.arpa'],
    ['10.0.0.5', 'Private IP address not allowed'],
    ['127.0.0.2', 'Private IP address not allowed'],
    ['[fd00::1]', 'Private IP address not allowed'],
  ])('%s: %s', (host, reason) => {
    expect(blockedHostReason(host)).toBe(reason);
  });

  it.each(['hooks.example.com', 'example.local.example.com', 'internal.example.com', '8.8.8.8', '[2606:4700::1111]'])(
    '%s passes',
    (host) => {
      expect(blockedHostReason(host)).toBeNull();
    },
  );
});

describe('WEBHOOK_ALLOWED_HOSTS', () => {
  it('reads names, addresses, networks and *', () => {
    const allowed = allow(' hooks.corp , 10.0.0.0/8, 127.0.0.1,[::1], fd00::/8 ');
    expect([...allowed.names]).toEqual(['hooks.corp']);
    expect(allowed.any).toBe(false);
    expect(allow('*').any).toBe(true);
    expect(parseAllowedHosts('')).toBe(NO_ALLOWED_HOSTS);
    expect(parseAllowedHosts(undefined)).toBe(NO_ALLOWED_HOSTS);
  });

  it.each(['10.0.0.0/33', '10.0.0.0/x', 'host/8', '10.0.0.0/8/1', 'a b', 'http://x', '::1/129', '10.0.0.0/'])('refuses %j', (entry) => {
    expect(parseAllowedHosts(`ok.example, ${entry}`)).toEqual({ error: entry });
  });

  it('lets through only what it lists', () => {
    const allowed = allow('hooks.corp, 10.0.0.0/8, 127.0.0.1, ::1');
    expect(hostRefusal(allowed, 'hooks.corp')).toBeNull();
    expect(hostRefusal(allowed, 'HOOKS.CORP.')).toBeNull();
    expect(hostRefusal(allowed, 'other.corp')).toBe('Internal domain pattern blocked: .corp');
    expect(hostRefusal(allowed, '10.9.8.7')).toBeNull();
    expect(hostRefusal(allowed, '127.0.0.1')).toBeNull();
    expect(hostRefusal(allowed, '127.0.0.2')).toBe('Private IP address not allowed');
    expect(hostRefusal(allowed, '[::1]')).toBeNull();
    expect(hostRefusal(allowed, '192.168.0.1')).toBe('Private IP address not allowed');
    expect(hostRefusal(allowed, 'localhost')).toBe('Local/Loopback host not allowed');

    expect(addressRefusal(allowed, '10.0.0.1')).toBeNull();
    expect(addressRefusal(allowed, '::ffff:10.0.0.1')).toBeNull();
    expect(addressRefusal(allowed, '192.168.0.1')).toBe('Disallowed target IP: 192.168.0.1');
    expect(addressRefusal(allowed, '8.8.8.8')).toBeNull();
    expect(addressRefusal(NO_ALLOWED_HOSTS, '127.0.0.1')).toBe('Disallowed target IP: 127.0.0.1');

    // A name listed is trusted whatever it resolves to; any other name's addresses are checked.
    expect(checksAddressesOf(allowed, 'hooks.corp')).toBe(false);
    expect(checksAddressesOf(allowed, 'hooks.example.com')).toBe(true);
  });

  it('* lets everything through', () => {
    const any = allow('*');
    expect(hostRefusal(any, '169.254.169.254')).toBeNull();
    expect(addressRefusal(any, '127.0.0.1')).toBeNull();
    expect(checksAddressesOf(any, 'anything')).toBe(false);
  });
});
