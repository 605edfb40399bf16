import { z } from 'zod';
import { CREDENTIAL_EVENTS } from './event-data/credential.js';
import { TOKEN_EVENTS } from './event-data/token.js';
import { REFUSAL_EVENTS } from './event-data/refusal.js';
import { SERVICE_EVENTS } from './event-data/service.js';
import { SINK_EVENTS } from './event-data/sink.js';
import { METADATA_CLIENT_EVENTS, TRUSTED_ISSUER_EVENTS } from './event-data/trusted-issuer.js';
import { AUTHORIZATION_EVENTS } from './event-data/authorization.js';
import { eventCatalog, schemasOf } from './event-catalog.js';
import { fullForm, type EventBody } from './stored-form.js';
import type { TOKEN_ISSUANCES } from './token/issuances.js';

/** Who did it and from where; recorded with every event. Never holds a credential. */
export const eventMetadataSchema = z.object({
  actor: z.string(),
  request_id: z.string(),
  /** The caller's X-Request-Id, kept beside ours. */
  client_request_id: z.string().optional(),
  client_ip: z.string(),
  user_agent: z.string().nullable(),
});
export type EventMetadata = z.infer<typeof eventMetadataSchema>;

/** The data schema of every event, one file per kind of event. */
export * from './event-data/credential.js';
export * from './event-data/token.js';
export * from './event-data/refusal.js';
export * from './event-data/service.js';
export * from './event-data/sink.js';

/** The audit filter's historic type order, kept for the OpenAPI document; new types follow. */
const LISTED_ORDER = `credential-created private-token-issued public-token-issued
  client-authentication-failed access-refused access-refusals-summarized credential-secret-rotated
  credential-secret-replayed credential-keys-changed credential-revoked token-revoked
  signing-key-generated signing-key-retired signing-keys-resealed credential-rate-limit-changed
  credential-scopes-changed client-authentication-failures-summarized audit-log-read
  events-archived`.split(/\s+/);

/** Every event type, declared once in `./event-data/` (see docs/architecture.md). */
export const EVENT_CATALOG = eventCatalog(
  [
    CREDENTIAL_EVENTS,
    TOKEN_EVENTS,
    REFUSAL_EVENTS,
    SERVICE_EVENTS,
    SINK_EVENTS,
    TRUSTED_ISSUER_EVENTS,
    METADATA_CLIENT_EVENTS,
    AUTHORIZATION_EVENTS,
  ],
  LISTED_ORDER,
);

/** Every event type's data schema, from the catalog. */
export const EVENT_SCHEMAS = schemasOf(EVENT_CATALOG);

export type EventType = keyof typeof EVENT_SCHEMAS;

/** Every event type, in catalog order. */
export const EVENT_TYPES = Object.freeze(Object.keys(EVENT_SCHEMAS)) as readonly EventType[] &
  readonly [EventType, ...EventType[]];
export type EventData<Type extends EventType> = z.infer<(typeof EVENT_SCHEMAS)[Type]>;

/** A domain event ready for the store: type, data and metadata, all validated. */
export interface DomainEvent<Type extends EventType = EventType> {
  readonly eventId: string;
  readonly type: Type;
  readonly data: EventData<Type>;
  readonly metadata: EventMetadata;
}

/** Builds a domain event, validating data and metadata against their schemas. */
export function domainEvent<Type extends EventType>(
  eventId: string,
  type: Type,
  data: EventData<Type>,
  metadata: EventMetadata,
): DomainEvent<Type> {
  return {
    eventId,
    type,
    data: EVENT_SCHEMAS[type].parse(data) as EventData<Type>,
    metadata: eventMetadataSchema.parse(metadata),
  };
}

/** Who makes an event no client request caused, and from where: an operator on a host, or the service. */
export interface ServiceActor {
  readonly actor: string;
  readonly origin: string;
  /**
   * The request that asked, or null for none (a timer, an operator, a write shared by many
   * requests): its events name it, so its deadline bounds them. Required, so each maker says which.
   */
  readonly requestId: string | null;
}

/** The metadata of an event no client request caused: the service's or an operator's own. */
export function serviceMetadata(actor: string, requestId: string, origin: string): EventMetadata {
  return { actor, request_id: requestId, client_ip: origin, user_agent: null };
}

/** What every command that records an event carries: the id its event gets, who asked from where. */
export interface Asked {
  readonly eventId: string;
  readonly metadata: EventMetadata;
}

/** The event a command asks for: its id and metadata are the command's. */
export function commandEvent<Type extends EventType>(
  command: Asked,
  type: Type,
  data: EventData<Type>,
): DomainEvent<Type> {
  return domainEvent(command.eventId, type, data, command.metadata);
}

/** An event as `evolve` reads it: data parsed, one member per type so a `switch` narrows `data`. */
export type Recorded<Type extends EventType = EventType> = {
  readonly [T in Type]: {
    readonly type: T;
    readonly data: EventData<T>;
    readonly spaceId: string;
    readonly streamPosition: number;
    readonly recordedAt: Date;
  };
}[Type];

/** A stored event as {@link Recorded}, in full form (see stored-form.ts) with its data parsed. */
export function parseRecorded<Type extends EventType>(
  event: EventBody & {
    readonly streamId: string;
    readonly spaceId: string;
    readonly streamPosition: number;
    readonly recordedAt: Date;
  },
): Recorded<Type> {
  const full = fullForm(event);
  return { ...full, data: parseEventData(full.type, full.data) } as unknown as Recorded<Type>;
}

/** Parses the data of a recorded event of a known type; undefined for types we do not know. */
export function parseEventData<Type extends EventType>(type: Type, data: unknown): EventData<Type>;
export function parseEventData(type: string, data: unknown): unknown;
export function parseEventData(type: string, data: unknown): unknown {
  const schema = (EVENT_SCHEMAS as Record<string, z.ZodType>)[type];
  return schema ? schema.parse(data) : undefined;
}

export { streams, SYSTEM_SPACE, type Placed } from './streams.js';

/** Compile-time: every issuance the token list names is an event of the catalog. */
type IssuancesAreEvents = keyof typeof TOKEN_ISSUANCES extends EventType ? true : never;
export const ISSUANCES_ARE_EVENTS: IssuancesAreEvents = true;
