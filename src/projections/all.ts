import type { Projection } from './projection.js';
import { ratesProjection } from './rates.js';
import { usageProjection } from './usage.js';
import { scopeRatesProjection } from './scope-rates.js';
import { statusListEntriesProjection } from './status-list-entries.js';

/** Every asynchronous projection, by the name used in checkpoints and `--rebuild`. */
export const PROJECTIONS: readonly Projection[] = [
  ratesProjection,
  usageProjection,
  scopeRatesProjection,
  statusListEntriesProjection,
];

/** The projection called `name`, or undefined. */
export function projectionNamed(name: string): Projection | undefined {
  return PROJECTIONS.find((projection) => projection.name === name);
}
