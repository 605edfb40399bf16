import { Gauge, type Registry } from 'prom-client';

/** A gauge fed by {@link gaugesOfRows}: its name, its help, the value it takes from a row. */
export type GaugeOfRow<Row> = readonly [name: string, help: string, value: (row: Row) => number];

/**
 * Gauges set at each scrape from one read they share (the registry collects them concurrently;
 * a failed read is no rows), a series per row labelled by `labels(row)`. With `reset`, a row gone
 * (a sink deleted) takes its series with it.
 */
export function gaugesOfRows<Row, Label extends string = never>(
  registry: Registry,
  options: {
    readonly read: () => Promise<readonly Row[]>;
    readonly labelNames?: Label[];
    readonly labels?: (row: Row) => Record<Label, string>;
    readonly aggregator: 'min' | 'max';
    readonly reset?: boolean;
    readonly gauges: ReadonlyArray<GaugeOfRow<Row>>;
  },
): void {
  let pending: Promise<readonly Row[]> | undefined;
  const read = () =>
    (pending ??= options
      .read()
      .catch(() => [])
      .finally(() => setTimeout(() => (pending = undefined), 250).unref()));
  for (const [name, help, value] of options.gauges) {
    new Gauge<Label>({
      name,
      help,
      labelNames: options.labelNames ?? [],
      registers: [registry],
      aggregator: options.aggregator,
      async collect() {
        if (options.reset) this.reset();
        for (const row of await read()) this.set(options.labels?.(row) ?? {}, value(row));
      },
    });
  }
}
