import { accept, refuse, type Decision } from './decision.js';

/** One key's events in one minute, recorded, and counted past the budget. */
export interface BudgetWindow {
  /** The space of the window's first event (where its summary is written, unless decided else). */
  readonly spaceId: string;
  readonly windowStart: number;
  readonly windowMs: number;
  /** Events recorded one by one (within the per-minute budget). */
  readonly appended: number;
  /** What was counted, not recorded, by name (e.g. `failed`, `refused`). */
  readonly counts: Readonly<Record<string, number>>;
  /** Source IPs (the first 50), and how many there were. */
  readonly ips: readonly string[];
  readonly ipCount: number;
  /** What else the window names (e.g. target spaces; the first 50), and how many there were. */
  readonly tags: readonly string[];
  readonly tagCount: number;
}

/** Whether `event` is recorded on its own or refused `over_budget`, only counted in the summary. */
export function decideBudgetedRecording<Event>(
  window: Pick<BudgetWindow, 'appended'>,
  perMinute: number,
  event: Event,
): Decision<Event, 'over_budget'> {
  return window.appended < perMinute ? accept([event]) : refuse('over_budget');
}

/** The window's bounds as ISO strings, for summary events. */
export function windowBounds(window: Pick<BudgetWindow, 'windowStart' | 'windowMs'>): {
  readonly window_start: string;
  readonly window_end: string;
} {
  return {
    window_start: new Date(window.windowStart).toISOString(),
    window_end: new Date(window.windowStart + window.windowMs).toISOString(),
  };
}
