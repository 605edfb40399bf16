import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { operatorSinksSchema } from '../../../src/delivery/operator-sinks.js';
import { deliveryUrl, recordedTarget } from '../../../src/domain/sink/targets.js';
import { sinkCreatedSchema, sinkTargetRequestSchema } from '../../../src/domain/event-data/sink.js';

/** Issue 51, item 7: a webhook's path and query (a receiver's token) are sealed, not recorded. */
const digest = (text: string) => createHmac('sha256', 'k'.repeat(32)).update(text).digest();

describe('a webhook target as recorded', () => {
  it('keeps the scheme, host and port with a keyed digest; the path and query go to be sealed', () => {
    const { target, path } = recordedTarget(
      { kind: 'webhook', url: 'https://siem.example:8443/hook/v2?token=abc#frag' },
      digest,
    );
    expect(target).toEqual({
      kind: 'webhook',
      url: 'https://siem.example:8443/',
      path_digest: `hmac-sha256:${digest('/hook/v2?token=abc').toString('hex')}`,
    });
    expect(path).toBe('/hook/v2?token=abc');
    expect(deliveryUrl(target, path)).toBe('https://siem.example:8443/hook/v2?token=abc');
    // A path that reads as another host stays a path on this one.
    const sneaky = recordedTarget(
      { kind: 'webhook', url: 'https://siem.example//evil.example/x' },
      digest,
    );
    expect(new URL(deliveryUrl(sneaky.target, sneaky.path)!).host).toBe('siem.example');
    // Sealed and not opened: no URL to deliver to, rather than the origin alone.
    expect(deliveryUrl(target, undefined)).toBeUndefined();
  });

  it('reads the events and rows recorded before, whole URL and all, as they were', () => {
    const before = {
      sink_id: 'snk_1',
      name: 'siem',
      target: { kind: 'webhook', url: 'https://siem.example/intake?token=abc' },
    };
    expect(sinkCreatedSchema.parse(before)).toEqual(before);
    expect(deliveryUrl(sinkCreatedSchema.parse(before).target, undefined)).toBe(before.target.url);
  });

  it('refuses a user name or password in a requested URL', () => {
    for (const url of ['https://alice:hunter2@siem.example/', 'https://alice@siem.example/']) {
      const parsed = sinkTargetRequestSchema.safeParse({ kind: 'webhook', url });
      expect(parsed.success, url).toBe(false);
      expect(JSON.stringify(parsed.error?.issues)).toMatch(/user name or password/);
    }
    expect(
      sinkTargetRequestSchema.safeParse({ kind: 'webhook', url: 'https://siem.example/?token=x' })
        .success,
    ).toBe(true);
    // The operator's AUDIT_SINKS too.
    const operator = { id: 'siem', kind: 'webhook', secret: `whsec_${'A'.repeat(32)}` };
    expect(
      operatorSinksSchema.safeParse([{ ...operator, url: 'https://a:b@siem.example/' }]).success,
    ).toBe(false);
    expect(
      operatorSinksSchema.safeParse([{ ...operator, url: 'https://siem.example/?token=x' }])
        .success,
    ).toBe(true);
  });
});
