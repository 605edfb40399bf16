import { describe, expect, it } from 'vitest';
import { operatorSinksSchema } from '../../src/delivery/operator-sinks.js';

describe('attack: AUDIT_SINKS with format secevent', () => {
  it('is refused, not silently turned into an all-spaces audit-trail webhook', () => {
    const parsed = operatorSinksSchema.safeParse([
      {
        id: 'partner',
        kind: 'webhook',
        url: 'https://partner.example/ssf',
        format: 'secevent',
        events: ['https://schemas.openid.net/secevent/caep/event-type/session-revoked'],
        secret: `whsec_${'A'.repeat(32)}`,
      },
    ]);
    if (parsed.success) console.log('parsed as', parsed.data);
    expect(parsed.success).toBe(false);
  });
});
