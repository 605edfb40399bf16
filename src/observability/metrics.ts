import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { registerSinkGauges, type SinkFigures } from './sink-metrics.js';
import { gaugesOfRows } from './scraped-gauges.js';
import { projectorLag } from '../projections/monitoring-queries.js';
import { EVENT_CATALOG } from '../domain/events.js';
import { appendCounters } from './event-counters.js';
import type { RecordedEvent } from '#event-log/types.js';
import type { RequestObserver } from './request-observer.js';
import { isDatabaseUnavailable } from '../db/postgres-errors.js';
import { metricsText } from './cluster-metrics.js';
import { AppendRefusedError } from '#event-log/errors.js';
import { partitionHorizon } from '#event-log/partitions.js';

/** The service's Prometheus metrics, served at GET /metrics. */
export interface Metrics {
  readonly registry: Registry;
  /** The text /metrics serves: every API worker's, aggregated, under `npm start`'s cluster. */
  text(): Promise<string>;
  readonly observeRequest: RequestObserver;
  /** Counts what was appended (called after every committed append). */
  appended(events: readonly RecordedEvent[]): void;
  /** Reports the occupancy of bounded caches and queues, read at each scrape. */
  watchSizes(read: () => Readonly<Record<string, number>>): void;
  /** Counts an append that failed (the event store's `failed`). */
  appendFailed(error: unknown): void;
  /** Whether the database answers, asked at each scrape (token_authority_database_up). */
  watchDatabase(check: () => Promise<{ readonly ready: boolean }>): void;
  /** The audit sinks' lag, failures and pause, read at each scrape (sink-metrics.ts). */
  watchSinks(read: () => Promise<readonly SinkFigures[]>): void;
}

/** Creates the registry. Projector lag is read from the database at scrape time. */
export function createMetrics(db: Kysely<Database>): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'token_authority_' });
  const counter = <Label extends string>(name: string, help: string, labelNames: Label[] = []) =>
    new Counter({ name, help, labelNames, registers: [registry] });
  const issued = counter(
    'token_authority_tokens_issued_total',
    'Access tokens issued, by kind and space',
    ['kind'],
  );
  const credentials = counter(
    'token_authority_credentials_created_total',
    'Client credentials created, by space',
  );
  const rejected = counter(
    'token_authority_rejected_client_authentications_total',
    'Failed client authentications of known clients, by space',
  );
  const lifecycle = counter(
    'token_authority_lifecycle_events_total',
    'Credential, token and signing-key lifecycle changes, by event type and space',
    ['event_type'],
  );
  const latency = new Histogram({
    name: 'token_authority_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const rateLimited = counter(
    'token_authority_rate_limited_total',
    'Requests answered 429, by route and budget (client, failed-auth, login-failures)',
    ['route', 'policy'],
  );
  const appendFailures = counter(
    'token_authority_append_failures_total',
    'Appends to the event log that failed (database unavailable, timeout, full queue)',
    ['reason'],
  );
  const sinks = registerSinkGauges(registry);
  let databaseCheck: (() => Promise<{ readonly ready: boolean }>) | undefined;
  new Gauge({
    name: 'token_authority_database_up',
    help: '1 when the database answered this scrape and is migrated, else 0',
    registers: [registry],
    aggregator: 'min',
    async collect() {
      if (!databaseCheck) return;
      this.set((await databaseCheck().catch(() => ({ ready: false }))).ready ? 1 : 0);
    },
  });
  const sizeReaders: Array<() => Readonly<Record<string, number>>> = [];
  new Gauge({
    name: 'token_authority_bounded_entries',
    help: 'Entries held by each bounded cache, queue and limiter of this process',
    labelNames: ['structure'] as const,
    registers: [registry],
    collect() {
      for (const read of sizeReaders) {
        for (const [structure, value] of Object.entries(read())) this.set({ structure }, value);
      }
    },
  });
  gaugesOfRows(registry, {
    read: async () => [await partitionHorizon(db)].filter((horizon) => horizon !== undefined),
    aggregator: 'min',
    gauges: [
      [
        'token_authority_event_partitions_ahead',
        "How far the event log's partitions reach past now, in partition intervals; at 0 appends get 503",
        (horizon) => horizon.ahead,
      ],
      [
        'token_authority_event_partitions_ahead_target',
        'How far they should reach (EVENT_PARTITIONS_AHEAD); each service process makes what is due every 10 s',
        (horizon) => horizon.target,
      ],
    ],
  });
  gaugesOfRows(registry, {
    read: () => projectorLag(db),
    labelNames: ['projection'],
    labels: (row) => ({ projection: row.projection }),
    aggregator: 'max',
    gauges: [
      [
        'token_authority_projector_lag_events',
        'Committed events not yet projected, per projection (counted up to 100,000: 100,001 means more)',
        (row) => Number(row.events_behind),
      ],
      [
        'token_authority_projector_lag_seconds',
        'Age of the oldest event not yet projected, per projection',
        (row) => Number(row.seconds_behind),
      ],
    ],
  });
  // No label per space: label sets must stay bounded whatever tenants do (per-space figures come
  // from the monitoring API).
  const countAppended = appendCounters(EVENT_CATALOG, {
    lifecycle: (event_type) => lifecycle.inc({ event_type }),
    'credentials-created': () => credentials.inc(),
    'private-tokens-issued': () => issued.inc({ kind: 'private' }),
    'public-tokens-issued': () => issued.inc({ kind: 'public' }),
    'rejected-authentications': () => rejected.inc(),
  });
  return {
    registry,
    text: metricsText(registry),
    observeRequest: ({ method, route, status, seconds, rateLimitPolicy }) => {
      latency.observe({ method, route, status: String(status) }, seconds);
      if (rateLimitPolicy) rateLimited.inc({ route, policy: rateLimitPolicy });
    },
    watchSizes: (read) => void sizeReaders.push(read),
    appendFailed: (error) =>
      appendFailures.inc({
        reason:
          error instanceof AppendRefusedError || isDatabaseUnavailable(error)
            ? 'unavailable'
            : 'error',
      }),
    watchDatabase: (check) => void (databaseCheck = check),
    watchSinks: sinks.watch,
    appended(events) {
      for (const event of events) countAppended.get(event.type)?.();
    },
  };
}
