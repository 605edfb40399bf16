import { Gauge, type Registry } from 'prom-client';

/** What /metrics shows of one audit sink (src/delivery/status.ts reads it from its cursor row). */
export interface SinkFigures {
  readonly sinkId: string;
  readonly lagEvents: number;
  readonly lagSeconds: number;
  readonly failures: number;
  readonly paused: boolean;
}

/**
 * The audit sinks' gauges, read from the database at scrape time (one read per scrape, shared by
 * the four), as the projector's lag is: the deliverer is its own process, and what it knows is in
 * its cursor rows. Labelled by sink id only: their number is the number of sinks admins made,
 * never a space or an event count.
 */
export function registerSinkGauges(registry: Registry): {
  watch(read: () => Promise<readonly SinkFigures[]>): void;
} {
  let reader: (() => Promise<readonly SinkFigures[]>) | undefined;
  let pending: Promise<readonly SinkFigures[]> | undefined;
  const read = () =>
    (pending ??= (reader?.() ?? Promise.resolve([]))
      .catch(() => [])
      .finally(() => setTimeout(() => (pending = undefined), 250).unref()));
  const gauge = (name: string, help: string, value: (sink: SinkFigures) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['sink'] as const,
      registers: [registry],
      aggregator: 'max',
      async collect() {
        this.reset();
        for (const sink of await read()) this.set({ sink: sink.sinkId }, value(sink));
      },
    });
  gauge(
    'token_authority_sink_lag_events',
    'Settled events not yet delivered to each audit sink (counted up to 100,000)',
    (sink) => sink.lagEvents,
  );
  gauge(
    'token_authority_sink_lag_seconds',
    'Age of the oldest event not yet delivered to each audit sink',
    (sink) => sink.lagSeconds,
  );
  gauge(
    'token_authority_sink_failures',
    'Failed deliveries to each audit sink since it was made (from its cursor row)',
    (sink) => sink.failures,
  );
  gauge(
    'token_authority_sink_paused',
    '1 while an audit sink is paused (failing past SINK_MAX_ATTEMPTS, or by an admin)',
    (sink) => (sink.paused ? 1 : 0),
  );
  return { watch: (next) => void (reader = next) };
}
