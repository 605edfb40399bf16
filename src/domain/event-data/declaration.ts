import type { z } from 'zod';
import type { SecuritySignal } from '../security-signals.js';

/** The counters of the rate views (`client_rate_minute`, `client_rate_hour`). */
export type RateCounter = 'private_tokens' | 'public_tokens' | 'rejected_authentications';

/** How an event adds to the rate views. */
export interface RateContribution<Field extends string = string> {
  readonly counter: RateCounter;
  /** Numeric data fields whose sum is the event's count; absent: the event counts as one. */
  readonly countFields?: readonly Field[];
}

/** The Prometheus counter an appended event adds one to (src/observability/metrics.ts). */
export type EventMetric =
  | 'lifecycle'
  | 'credentials-created'
  | 'private-tokens-issued'
  | 'public-tokens-issued'
  | 'rejected-authentications';

/** What an example event is made of: one client's, at one time, with fresh ids. */
export interface ExampleInputs {
  readonly clientId: string;
  readonly now: Date;
  /** A minute after `now`. */
  readonly later: Date;
  readonly id: () => string;
}

type Field<Schema extends z.ZodType> = keyof z.infer<Schema> & string;

/** What an event type says of itself besides its schema; what it leaves out takes the default. */
export interface EventProperties<Schema extends z.ZodType> {
  /** Fields replaced by their digest wherever the event leaves the database: secret hashes. */
  readonly redacted?: readonly Field<Schema>[];
  /** Fields of its data copied into its audit trail entry's `details` (never a secret's hash). */
  readonly audit: readonly Field<Schema>[];
  /** What it adds to the rate views. Default: nothing. */
  readonly rate?: RateContribution<Field<Schema>>;
  /** Whether it is a use of its client's credential (the usage view's `last_used_at`). Default: no. */
  readonly isUse?: boolean;
  /** The counter it adds one to when appended, or null for none. Default: `lifecycle`. */
  readonly metric?: EventMetric | null;
  /** The Shared Signals it gives a space's streams (src/delivery/signal-tokens.ts). Default: none. */
  readonly signal?: (
    data: z.infer<Schema>,
  ) => SecuritySignal | readonly SecuritySignal[] | undefined;
  /** One valid event of the type, for the tests and as its illustration. */
  readonly example: (given: ExampleInputs) => z.infer<Schema>;
}

/** An event type as the catalog holds it: its data schema and every property, defaults filled. */
export interface EventDeclaration<Schema extends z.ZodType = z.ZodType> {
  readonly schema: Schema;
  readonly redacted: readonly string[];
  readonly audit: readonly string[];
  readonly rate: RateContribution | null;
  readonly isUse: boolean;
  readonly metric: EventMetric | null;
  readonly signal:
    ((data: z.infer<Schema>) => SecuritySignal | readonly SecuritySignal[] | undefined) | null;
  readonly example: (given: ExampleInputs) => z.infer<Schema>;
}

/** Declares an event type: its data schema and properties, field names checked against it. */
export function declareEvent<Schema extends z.ZodType>(
  schema: Schema,
  properties: NoInfer<EventProperties<Schema>>,
): EventDeclaration<Schema> {
  return Object.freeze({
    schema,
    redacted: properties.redacted ?? [],
    audit: properties.audit,
    rate: properties.rate ?? null,
    isUse: properties.isUse ?? false,
    metric: properties.metric === undefined ? 'lifecycle' : properties.metric,
    signal: properties.signal ?? null,
    example: properties.example,
  });
}

/** An object schema's fields in its order, but `except`: an audit of all it says. */
export function fieldsOf<Shape extends z.ZodRawShape, Except extends keyof Shape & string = never>(
  schema: z.ZodObject<Shape>,
  ...except: Except[]
): Exclude<keyof Shape & string, Except>[] {
  return Object.keys(schema.shape).filter(
    (field) => !(except as string[]).includes(field),
  ) as Exclude<keyof Shape & string, Except>[];
}
