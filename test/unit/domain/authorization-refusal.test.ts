import { describe, expect, it } from 'vitest';
import {
  authorizationRefusalKey,
  decideAuthorizationRefusalSummary,
  decideAuthorizationRefused,
} from '../../../src/domain/authorization-refusal/decide.js';
import type { BudgetWindow } from '../../../src/domain/budget-window.js';
import { metadata } from '../../support/given.js';

const refusal = {
  client_id: 'https://agent.example/client.json',
  error: 'invalid_request' as const,
  description: 'redirect_uri is not one the client registered',
  redirected: false,
};
const window = (counts: Record<string, number>): BudgetWindow => ({
  spaceId: 'space-a',
  windowStart: Date.UTC(2026, 10, 30, 4, 0),
  windowMs: 60_000,
  appended: 3,
  counts,
  ips: ['203.0.113.9'],
  ipCount: 1,
  tags: [refusal.client_id],
  tagCount: 1,
});

describe('a refused authorization request', () => {
  it('when refused, then the event goes to the space asked, on its budget per space and error', () => {
    const placed = decideAuthorizationRefused({
      eventId: 'e-1',
      spaceId: 'space-a',
      refusal,
      metadata,
    });
    expect(placed.facts.spaceId).toBe('space-a');
    expect(placed.facts.key).toBe(authorizationRefusalKey('space-a', 'invalid_request'));
    expect(placed.facts.key).not.toBe(authorizationRefusalKey('space-b', 'invalid_request'));
    expect(placed.events[0]).toMatchObject({
      type: 'authorization-request-refused',
      data: refusal,
    });
  });

  it('given a window that counted nothing past its budget, then no summary', () => {
    const key = authorizationRefusalKey('space-a', 'invalid_request');
    const decided = decideAuthorizationRefusalSummary(
      { key, eventId: 'e-2', requestId: 'r-2' },
      window({}),
    );
    expect(decided.events).toEqual([]);
    expect(decided.facts).toBeUndefined();
  });

  it('given requests refused past the budget or rate limited, then one summary in their space', () => {
    const key = authorizationRefusalKey('space-b', 'rate_limited');
    const decided = decideAuthorizationRefusalSummary(
      { key, eventId: 'e-3', requestId: 'r-3' },
      window({ refused: 41 }),
    );
    expect(decided.facts?.spaceId).toBe('space-b');
    expect(decided.events[0]).toMatchObject({
      type: 'authorization-refusals-summarized',
      data: {
        reason: 'rate_limited',
        refused: 41,
        client_ids: [refusal.client_id],
        client_id_count: 1,
        window_start: '2026-11-30T04:00:00.000Z',
        window_end: '2026-11-30T04:01:00.000Z',
      },
    });
  });
});
