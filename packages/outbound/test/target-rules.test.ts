import { describe, expect, it } from 'vitest';
import { guardedLookup, type Resolver } from '../src/guarded-lookup.js';
import { TargetRefusedError } from '../src/transport.js';
import { targetRefusal, resolvedAddressRefusal, type TargetRules } from '../src/target-rules.js';

/** Issue 43: where a sink may point (SSRF): never the metadata service, never the service itself. */
const development = { production: false, allowHttpHosts: [], ownPorts: [8080, 9464] };
const production = { ...development, production: true, allowHttpHosts: ['siem.internal'] };

const lookup = (host: string, rules: TargetRules = development, port = 514) =>
  new Promise<string>((resolve, reject) =>
    guardedLookup({ host, port, rules })(host, {}, (error, address) =>
      error ? reject(error) : resolve(String(address)),
    ),
  );
const at = (host: string, port = 514) => ({ host, port });
const webhook = (url: string) => ({ kind: 'webhook' as const, url });
const syslog = (host: string, port = 6514) => ({ kind: 'syslog' as const, host, port, tls: true });

describe('sink target rules', () => {
  it('refuses the link-local range and metadata names in every spelling, in every environment', () => {
    for (const url of [
      'https://169.254.169.254/latest/meta-data/',
      'http://2852039166/',
      'http://0xa9fea9fe/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fe80::1]/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'http://0.0.0.0:8080/',
    ]) {
      expect(targetRefusal(webhook(url), development), url).toMatch(/link-local|metadata/);
    }
    expect(targetRefusal(syslog('169.254.10.1'), production)).toMatch(/link-local/);
    expect(resolvedAddressRefusal('169.254.169.254', at('h'), development)).toMatch(/link-local/);
    expect(resolvedAddressRefusal('10.0.0.5', at('h'), development)).toBeUndefined();
  });

  it("refuses the service's own API and metrics ports on loopback; other loopback ports are a development receiver", () => {
    expect(targetRefusal(webhook('http://127.0.0.1:9464/metrics'), development)).toMatch(
      /own port/,
    );
    expect(targetRefusal(webhook('http://localhost:8080/v1/issue'), development)).toMatch(
      /own port/,
    );
    expect(targetRefusal(syslog('127.0.0.2', 9464), development)).toMatch(/own port/);
    expect(targetRefusal(webhook('http://127.0.0.1:4000/hook'), development)).toBeUndefined();
  });

  it('in production: https only, plain http for ALLOW_HTTP_HOSTS alone, no loopback', () => {
    expect(targetRefusal(webhook('https://siem.example/intake'), production)).toBeUndefined();
    expect(targetRefusal(webhook('http://siem.example/intake'), production)).toMatch(/https/);
    expect(targetRefusal(webhook('http://siem.internal:8088/'), production)).toBeUndefined();
    expect(targetRefusal(webhook('https://127.0.0.1:4000/'), production)).toMatch(/loopback/);
    expect(targetRefusal(syslog('localhost'), production)).toMatch(/loopback/);
    expect(targetRefusal(syslog('logs.example'), production)).toBeUndefined();
  });

  it('refuses, at connect time, a name that resolves into the link-local range (DNS rebinding)', async () => {
    await expect(lookup('169.254.169.254')).rejects.toThrow(/link-local/);
    await expect(lookup('127.0.0.1')).resolves.toBe('127.0.0.1');
  });

  it('applies the production and own-port address rules to what a name resolves to at connect time', async () => {
    await expect(lookup('localhost', production)).rejects.toThrow(
      /localhost resolves to 127\.0\.0\.1 at connect time: .*loopback/,
    );
    await expect(lookup('localhost', development)).resolves.toBe('127.0.0.1');
    await expect(lookup('localhost', development, 9464)).rejects.toThrow(/own port/);
    // ALLOW_HTTP_HOSTS names the host the sink was given, as when the sink was made.
    const allowed = { ...production, allowHttpHosts: ['localhost'] };
    expect(targetRefusal(syslog('localhost'), allowed)).toBeUndefined();
    await expect(lookup('localhost', allowed)).resolves.toBe('127.0.0.1');
    expect(resolvedAddressRefusal('::ffff:127.0.0.1', at('logs.example'), production)).toMatch(
      /loopback/,
    );
    expect(resolvedAddressRefusal('127.0.0.1', at('logs.example'), development)).toBeUndefined();
  });

  it('in production refuses the private network in every spelling, at creation (issue 51, item 5)', () => {
    const refused = [
      'https://10.0.0.5/',
      'https://172.16.0.1/',
      'https://192.168.1.1/',
      'https://100.64.0.1/',
      'https://[fd12:3456::1]/',
      'https://[fec0::1]/',
      'https://[::ffff:10.0.0.5]/',
      'https://[::10.0.0.5]/',
      'https://[64:ff9b::10.0.0.5]/',
      'https://[64:ff9b:1::a00:5]/',
      'https://[2002:a00:5::]/',
      'https://[::127.0.0.1]/',
    ];
    for (const url of refused) {
      expect(targetRefusal(webhook(url), production), url).toMatch(
        /private|shared|unique-local|loopback|NAT64/,
      );
      expect(targetRefusal(webhook(url), development), url).toBeUndefined();
    }
    expect(targetRefusal(syslog('10.0.0.5', 6379), production)).toMatch(/private/);
    // Syslog without TLS: refused in production wherever it goes, unless allowed.
    const plain = { ...syslog('10.0.0.5', 6379), tls: false };
    expect(targetRefusal(plain, production)).toMatch(/private/);
    expect(targetRefusal({ ...plain, host: 'logs.example' }, production)).toMatch(/TLS/);
    expect(targetRefusal(plain, development)).toBeUndefined();
    // Public addresses, and the IPv6 forms of public ones, stay allowed.
    for (const url of [
      'https://93.184.216.34/',
      'https://[2606:4700::1111]/',
      'https://[64:ff9b::808:808]/',
      'https://[2002:808:808::]/',
      'https://100.128.0.1/',
    ]) {
      expect(targetRefusal(webhook(url), production), url).toBeUndefined();
    }
  });

  it("refuses every cloud's metadata address, and the IPv6 forms of the link-local one, in every environment (issue 51, item 5)", () => {
    for (const url of [
      'https://100.100.100.200/latest/meta-data/',
      'https://[fd00:ec2::254]/latest/meta-data/',
      'https://[64:ff9b::169.254.169.254]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[2002:a9fe:a9fe::1]/',
      'https://[::169.254.169.254]/',
      'https://[::ffff:a9fe:a9fe]/',
      'https://[::ffff:0:a9fe:a9fe]/',
      'https://[2001:0:4136:e378:8000:63bf:5601:5601]/',
    ]) {
      expect(targetRefusal(webhook(url), development), url).toMatch(/link-local|metadata/);
      expect(targetRefusal(webhook(url), production), url).toMatch(/link-local|metadata/);
    }
  });

  it('in production refuses, at connect time, a name that resolves into the private network (issue 51, item 5)', async () => {
    const resolvingTo =
      (address: string): Resolver =>
      (_hostname, _options, callback) =>
        callback(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
    const connect = (address: string, rules: TargetRules, plaintext = false) =>
      new Promise<string>((resolve, reject) =>
        guardedLookup({
          host: 'siem.example',
          port: 443,
          plaintext,
          rules,
          resolve: resolvingTo(address),
        })('siem.example', {}, (error, resolved) =>
          error ? reject(error) : resolve(String(resolved)),
        ),
      );
    for (const address of [
      '10.0.0.5',
      '100.100.100.200',
      'fd00:ec2::254',
      '64:ff9b::a00:5',
      '2002:a00:5::',
    ]) {
      await expect(connect(address, production), address).rejects.toThrow(
        /siem\.example resolves to .* at connect time/,
      );
      await expect(connect(address, production), address).rejects.toBeInstanceOf(
        TargetRefusedError,
      );
    }
    await expect(connect('10.0.0.5', development)).resolves.toBe('10.0.0.5');
    await expect(connect('93.184.216.34', production)).resolves.toBe('93.184.216.34');
    await expect(connect('93.184.216.34', production, true)).rejects.toThrow(/TLS/);
  });

  it("takes the operator's SINK_ALLOW_TARGETS: a block or a host reaches the private network, never the metadata service (issue 51, item 5)", () => {
    const allowing: TargetRules = {
      ...production,
      allowTargets: ['10.20.0.0/16', 'logs.internal', '169.254.0.0/16', 'fd12::/16'],
    };
    expect(targetRefusal(webhook('https://10.20.1.2/'), allowing)).toBeUndefined();
    expect(targetRefusal(webhook('https://[::ffff:10.20.1.2]/'), allowing)).toBeUndefined();
    expect(targetRefusal(webhook('https://[fd12::5]/'), allowing)).toBeUndefined();
    expect(targetRefusal(webhook('https://10.21.0.1/'), allowing)).toMatch(/private/);
    expect(targetRefusal({ ...syslog('10.20.1.2', 514), tls: false }, allowing)).toBeUndefined();
    expect(
      targetRefusal({ ...syslog('logs.internal', 514), tls: false }, allowing),
    ).toBeUndefined();
    expect(targetRefusal({ ...syslog('logs.example', 514), tls: false }, allowing)).toMatch(/TLS/);
    expect(targetRefusal(webhook('https://169.254.169.254/'), allowing)).toMatch(/metadata/);
    expect(
      targetRefusal(webhook('https://127.0.0.1:8080/'), {
        ...allowing,
        allowTargets: ['127.0.0.0/8'],
      }),
    ).toMatch(/own port/);
    // A name is judged by what it resolves to: a block holds it, or it is refused.
    const named = { host: 'siem.example', port: 443 };
    expect(resolvedAddressRefusal('10.20.9.9', named, allowing)).toBeUndefined();
    expect(resolvedAddressRefusal('10.30.9.9', named, allowing)).toMatch(/private/);
    expect(
      resolvedAddressRefusal('10.20.9.9', { ...named, plaintext: true }, allowing),
    ).toBeUndefined();
    expect(
      resolvedAddressRefusal(
        '10.30.9.9',
        { host: 'logs.internal', port: 514, plaintext: true },
        allowing,
      ),
    ).toBeUndefined();
  });

  it('judges a Teredo address (2001:0::/32) by both IPv4 addresses it carries: its server and its XORed client', () => {
    // server 10.0.0.1, client 169.254.169.254 (XORed: 5601:5601): the metadata service.
    const metadataClient = 'http://[2001:0:a00:1::5601:5601]/';
    expect(targetRefusal(webhook(metadataClient), development)).toMatch(
      /Teredo form of 169\.254\.169\.254.*metadata/,
    );
    expect(resolvedAddressRefusal('2001:0:a00:1::5601:5601', at('h'), development)).toMatch(
      /metadata/,
    );
    // server 8.8.8.8, client 10.0.0.5 (f5ff:fffa): the private network, in production.
    expect(targetRefusal(webhook('https://[2001:0:808:808::f5ff:fffa]/'), production)).toMatch(
      /Teredo form of 10\.0\.0\.5.*private/,
    );
    // server 127.0.0.1, client 8.8.8.8 (f7f7:f7f7): loopback, and the own port on it.
    expect(targetRefusal(webhook('http://[2001:0:7f00:1::f7f7:f7f7]:8080/'), development)).toMatch(
      /own port/,
    );
    // A public server and client: an address like any other.
    expect(
      targetRefusal(webhook('https://[2001:0:808:808::f7f7:f7f7]/'), production),
    ).toBeUndefined();
    // An allowed block must hold both: server 10.20.0.1 allowed, client 192.168.1.1 (3f57:fefe) not.
    const allowing: TargetRules = { ...production, allowTargets: ['10.20.0.0/16'] };
    expect(targetRefusal(webhook('https://[2001:0:a14:1::f5eb:fffe]/'), allowing)).toBeUndefined();
    expect(targetRefusal(webhook('https://[2001:0:a14:1::3f57:fefe]/'), allowing)).toMatch(
      /Teredo form of .*private/,
    );
  });
});
