import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { redactionOf } from '#audit-log/redaction.js';
import { redactEvent } from '../../src/audit-trail/redaction.js';
import { eventCatalog, schemasOf, typesWhere } from '../../src/domain/event-catalog.js';
import { declareEvent } from '../../src/domain/event-data/declaration.js';
import { EVENT_CATALOG, EVENT_TYPES } from '../../src/domain/events.js';
import type { RecordedEvent } from '#event-log/types.js';
import { appendCounters } from '../../src/observability/event-counters.js';
import { auditDetailsOf } from '../../src/projections/audit.js';
import { rateCountingOf } from '../../src/projections/rates.js';
import { usesOf } from '../../src/projections/usage.js';
import { examplesOf } from '../support/example-events.js';

// Two event types declared here and nowhere else: one saying every property, one only what it
// must. Everything below reaches them through a catalog made of the service's and these.
const badgeScannedSchema = z.object({
  client_id: z.string(),
  badge_pin: z.string(),
  door: z.string(),
  scans: z.number().int(),
});
const THROWAWAY = {
  'badge-scanned': declareEvent(badgeScannedSchema, {
    redacted: ['badge_pin'],
    audit: ['door', 'scans'],
    rate: { counter: 'rejected_authentications', countFields: ['scans'] },
    isUse: true,
    metric: 'rejected-authentications',
    example: ({ clientId }) => ({
      client_id: clientId,
      badge_pin: '1234',
      door: 'north',
      scans: 3,
    }),
  }),
  'door-opened': declareEvent(z.object({ door: z.string() }), {
    audit: ['door'],
    example: () => ({ door: 'north' }),
  }),
};
const catalog = eventCatalog([EVENT_CATALOG, THROWAWAY]);

const recorded = (type: string, data: unknown): RecordedEvent => ({
  globalPosition: 1,
  transactionId: '1',
  spaceId: 'space-1',
  streamId: 'badge-1',
  streamPosition: 1,
  eventId: 'event-1',
  type,
  schemaVersion: 1,
  data,
  metadata: { actor: 'test' },
  recordedAt: new Date(0),
});
const example = { client_id: 'ci_1', badge_pin: '1234', door: 'north', scans: 3 };

describe('a new event type, declared once', () => {
  it("joins the catalog after the service's types, which keep their order", () => {
    expect(Object.keys(catalog)).toEqual([...EVENT_TYPES, 'badge-scanned', 'door-opened']);
    expect(schemasOf(catalog)['badge-scanned'].parse(example)).toEqual(example);
  });

  it('takes the defaults for what it does not say: nothing redacted or counted, a lifecycle metric', () => {
    expect(catalog['door-opened']).toMatchObject({
      redacted: [],
      rate: null,
      isUse: false,
      metric: 'lifecycle',
    });
  });

  it("is redacted as it declares, where the service's redaction does not know it", () => {
    const event = recorded('badge-scanned', example);
    const redacted = redactionOf(catalog)(event);
    const digest = createHash('sha256').update('1234').digest('hex');
    expect(redacted.data).toEqual({ ...example, badge_pin: `sha256:${digest}` });
    expect(redactionOf(catalog)(redacted)).toEqual(redacted);
    const opened = recorded('door-opened', { door: 'north' });
    expect(redactionOf(catalog)(opened)).toBe(opened);
    expect(redactEvent(event)).toBe(event);
  });

  it('shows its audit fields in the trail, never the redacted one', () => {
    expect(auditDetailsOf(catalog)('badge-scanned', example)).toEqual({ door: 'north', scans: 3 });
    expect(auditDetailsOf(catalog)('door-opened', {})).toEqual({ door: null });
  });

  it('adds to the rate and usage views it declares', () => {
    const service = rateCountingOf(EVENT_CATALOG);
    const extended = rateCountingOf(catalog);
    expect(extended.counted).toEqual([...service.counted, 'badge-scanned']);
    const branch = `WHEN 'badge-scanned' THEN coalesce((e.data->>'scans')::bigint, 0)`;
    expect(extended.sumOf('rejected_authentications', 'e')).toBe(
      service.sumOf('rejected_authentications', 'e').replace(' END), 0)', ` ${branch} END), 0)`),
    );
    expect(extended.sumOf('private_tokens', 'e')).toBe(service.sumOf('private_tokens', 'e'));
    expect(usesOf(catalog)).toEqual([...usesOf(EVENT_CATALOG), 'badge-scanned']);
  });

  it('counts in the metric it declares, or the lifecycle counter by default', () => {
    const counters = {
      lifecycle: vi.fn(),
      'credentials-created': vi.fn(),
      'private-tokens-issued': vi.fn(),
      'public-tokens-issued': vi.fn(),
      'rejected-authentications': vi.fn(),
    };
    const counting = appendCounters(catalog, counters);
    counting.get('badge-scanned')!();
    counting.get('door-opened')!();
    expect(counters['rejected-authentications']).toHaveBeenCalledWith('badge-scanned');
    expect(counters.lifecycle).toHaveBeenCalledWith('door-opened');
    expect(counting.has('access-refusals-summarized')).toBe(false);
  });

  it('brings its example to the tests', () => {
    expect(examplesOf(catalog, 'ci_1')['badge-scanned']).toEqual(example);
  });
});

describe("the service's catalog", () => {
  it('refuses a type declared twice, or listed and not declared', () => {
    expect(() =>
      eventCatalog([EVENT_CATALOG, { 'token-revoked': THROWAWAY['door-opened'] }]),
    ).toThrow(/declared twice/);
    expect(() => eventCatalog([THROWAWAY], ['door-closed'])).toThrow(/not declared/);
  });

  it('redacts only secret hashes (every leaf of the trees depends on this)', () => {
    const redacting = typesWhere(EVENT_CATALOG, ({ redacted }) => redacted.length > 0);
    expect(
      Object.fromEntries(redacting.map((type) => [type, EVENT_CATALOG[type].redacted])),
    ).toEqual({
      'credential-created': ['secret_hash'],
      'credential-secret-rotated': ['secret_hash'],
      // The digests of a browser's cookie, an authorization code, a refresh token: secrets' hashes too.
      'authorization-requested': ['browser'],
      'authorization-accepted': ['resume'],
      'authorization-code-issued': ['code'],
      'authorization-code-redeemed': ['refresh'],
      'authorization-refreshed': ['refresh'],
    });
  });

  it('declares a valid example of every type, and only fields its schema has', () => {
    const examples = examplesOf(EVENT_CATALOG, 'ci_1');
    for (const [type, declaration] of Object.entries(EVENT_CATALOG)) {
      // Parsing drops a field the schema does not have: the example must come back whole.
      expect(declaration.schema.parse(examples[type]), type).toEqual(examples[type]);
      const fields = Object.keys((declaration.schema as z.ZodObject).shape);
      const named = [
        ...declaration.redacted,
        ...declaration.audit,
        ...(declaration.rate?.countFields ?? []),
      ];
      expect(
        named.filter((field) => !fields.includes(field)),
        type,
      ).toEqual([]);
    }
  });
});
