import { describe, expect, it } from 'vitest';
import {
  decideAccessRefused,
  decideRefusalSummary,
  refusalBudgetKey,
} from '../../../src/domain/access-refusal/decide.js';
import type { BudgetWindow } from '../../../src/domain/budget-window.js';
import { metadata } from '../../support/given.js';

const refusal = (reason: 'invalid_login_token' | 'space_not_granted' | 'role_forbidden') => ({
  reason,
  subject: reason === 'invalid_login_token' ? null : 'mallory',
  operation: 'listCredentials',
  requested_space: 'space-b',
});

describe('a refused login-token request', () => {
  it('when the token did not verify, then the event goes to the service space, on one budget', () => {
    const placed = decideAccessRefused({
      eventId: 'e-1',
      refusal: refusal('invalid_login_token'),
      metadata,
    });
    expect(placed.facts.spaceId).toBe('_system');
    expect(placed.facts.key).toBe(refusalBudgetKey('invalid_login_token', null));
    expect(placed.events[0]!.type).toBe('access-refused');
  });

  it('when a verified user asks for a space not theirs, then the event goes to that space, on their budget', () => {
    const placed = decideAccessRefused({
      eventId: 'e-2',
      refusal: refusal('space_not_granted'),
      metadata,
    });
    expect(placed.facts.spaceId).toBe('space-b');
    expect(placed.facts.key).toBe(refusalBudgetKey('space_not_granted', 'mallory'));
    expect(placed.events[0]!.data).toEqual(refusal('space_not_granted'));
  });
});

describe('refusals past the per-minute budget', () => {
  const window: BudgetWindow = {
    spaceId: 'space-b',
    windowStart: Date.parse('2026-11-23T10:00:00Z'),
    windowMs: 60_000,
    appended: 10,
    counts: {},
    ips: ['192.0.2.7'],
    ipCount: 1,
    tags: ['space-b', 'space-c'],
    tagCount: 9,
  };
  const command = (key: string) => ({ key, eventId: 'e-9', requestId: 'r-9' });

  it('given nothing counted, then no summary', () => {
    expect(
      decideRefusalSummary(command(refusalBudgetKey('space_not_granted', 'mallory')), window),
    ).toEqual({ ok: true, events: [], facts: undefined });
  });

  it('given counted cross-space refusals, then one summary in the service space listing the spaces', () => {
    const summary = decideRefusalSummary(
      command(refusalBudgetKey('space_not_granted', 'mallory')),
      { ...window, counts: { refused: 30 } },
    );
    expect(summary.facts?.spaceId).toBe('_system');
    expect(summary.events[0]?.data).toEqual({
      reason: 'space_not_granted',
      subject: 'mallory',
      window_start: '2026-11-23T10:00:00.000Z',
      window_end: '2026-11-23T10:01:00.000Z',
      refused: 30,
      refused_while_locked_out: 0,
      requested_spaces: ['space-b', 'space-c'],
      requested_space_count: 9,
      source_ips: ['192.0.2.7'],
      source_ip_count: 1,
    });
  });

  it("given an auditor's counted refused changes, then the summary goes to the window's space", () => {
    const summary = decideRefusalSummary(command(refusalBudgetKey('role_forbidden', 'carol')), {
      ...window,
      counts: { refused: 4 },
    });
    expect(summary.facts?.spaceId).toBe('space-b');
  });

  it('given bad tokens refused while locked out, then they are counted apart', () => {
    const summary = decideRefusalSummary(command(refusalBudgetKey('invalid_login_token', null)), {
      ...window,
      counts: { refused: 2, locked_out: 50 },
    });
    expect(summary.events[0]?.data).toMatchObject({ refused: 2, refused_while_locked_out: 50 });
  });
});
