import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { channelKey, openedPayload, sealedPayload, splitMessage } from '../src/notify-payload.js';

describe('NOTIFY payloads', () => {
  it('opens only what the same key sealed', () => {
    const key = channelKey(randomBytes(32), 'test channel');
    const json = JSON.stringify({ from: 'a', message: { spent: [['c', 1]] } });
    expect(openedPayload(key, sealedPayload(key, json))).toBe(json);
    const other = channelKey(randomBytes(32), 'test channel');
    expect(openedPayload(other, sealedPayload(key, json))).toBeUndefined();
    expect(openedPayload(key, json)).toBeUndefined();
  });

  it('sends a small message whole, a large one in parts that fit and lose nothing', () => {
    const small = { kind: 'k', spent: [['a', 1]], failed: ['x'] };
    expect(splitMessage(small, 'me')).toEqual([JSON.stringify({ from: 'me', message: small })]);
    const spent = Array.from({ length: 900 }, (_, i) => [`client-${i}`, i + 1] as const);
    const failed = Array.from({ length: 301 }, (_, i) => `ip-${i}`);
    const parts = splitMessage({ kind: 'k', spent, failed }, 'me').map(
      (part) => JSON.parse(part) as { from: string; message: typeof small },
    );
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) {
      expect(JSON.stringify(part).length).toBeLessThanOrEqual(7000);
      expect(part).toMatchObject({ from: 'me', message: { kind: 'k' } });
    }
    expect(parts.flatMap((part) => part.message.spent)).toEqual(spent);
    expect(parts.flatMap((part) => part.message.failed)).toEqual(failed);
  });
});
