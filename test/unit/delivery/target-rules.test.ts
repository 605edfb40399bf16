import { describe, expect, it } from 'vitest';
import { guardedLookup } from '../../../src/delivery/guarded-lookup.js';
import {
  targetRefusal,
  resolvedAddressRefusal,
  type TargetRules,
} from '../../../src/delivery/target-rules.js';

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
    expect(resolvedAddressRefusal('10.0.0.5', at('h'), production)).toBeUndefined();
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
});
