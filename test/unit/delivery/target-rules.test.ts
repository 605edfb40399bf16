import { describe, expect, it } from 'vitest';
import { guardedLookup } from '../../../src/delivery/guarded-lookup.js';
import { targetRefusal, resolvedAddressRefusal } from '../../../src/delivery/target-rules.js';

const lookup = (host: string) =>
  new Promise<string>((resolve, reject) =>
    guardedLookup(host, {}, (error, address) => (error ? reject(error) : resolve(String(address)))),
  );

/** Issue 43: where a sink may point (SSRF): never the metadata service, never the service itself. */
const development = { production: false, allowHttpHosts: [], ownPorts: [8080, 9464] };
const production = { ...development, production: true, allowHttpHosts: ['siem.internal'] };
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
    expect(resolvedAddressRefusal('169.254.169.254')).toMatch(/link-local/);
    expect(resolvedAddressRefusal('10.0.0.5')).toBeUndefined();
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
});
