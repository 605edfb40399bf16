import type { Registry } from 'prom-client';
import { gaugesOfRows, type GaugeOfRow } from './scraped-gauges.js';

/** What /metrics shows of one audit sink (src/delivery/status.ts reads it from its cursor row). */
export interface SinkFigures {
  readonly sinkId: string;
  readonly lagEvents: number;
  readonly lagSeconds: number;
  readonly failures: number;
  readonly paused: boolean;
}

const SINK_GAUGES: ReadonlyArray<GaugeOfRow<SinkFigures>> = [
  [
    'token_authority_sink_lag_events',
    'Settled events not yet delivered to each audit sink (counted up to 100,000)',
    (sink) => sink.lagEvents,
  ],
  [
    'token_authority_sink_lag_seconds',
    'Age of the oldest event not yet delivered to each audit sink',
    (sink) => sink.lagSeconds,
  ],
  [
    'token_authority_sink_failures',
    'Failed deliveries to each audit sink since it was made (from its cursor row)',
    (sink) => sink.failures,
  ],
  [
    'token_authority_sink_paused',
    '1 while an audit sink is paused (failing past SINK_MAX_ATTEMPTS, or by an admin)',
    (sink) => (sink.paused ? 1 : 0),
  ],
];

/**
 * The audit sinks' gauges, read from the database at scrape time: the deliverer is its own
 * process, and what it knows is in its cursor rows. Labelled by sink id only: their number is
 * the number of sinks admins made, never a space or an event count.
 */
export function registerSinkGauges(registry: Registry): {
  watch(read: () => Promise<readonly SinkFigures[]>): void;
} {
  let reader: (() => Promise<readonly SinkFigures[]>) | undefined;
  gaugesOfRows(registry, {
    read: () => reader?.() ?? Promise.resolve([]),
    labelNames: ['sink'],
    labels: (sink) => ({ sink: sink.sinkId }),
    aggregator: 'max',
    reset: true,
    gauges: SINK_GAUGES,
  });
  return { watch: (next) => void (reader = next) };
}
