import { clientActor } from './actors.js';
import { isIssuance } from './token/issuances.js';
import { tokenStreamId } from './streams.js';
import { isoOfSeconds, secondsOfIso } from './times.js';

/** The parts of an event that {@link storedForm} and {@link fullForm} look at. */
export interface EventBody {
  readonly eventId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

type Json = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
// Request metadata always has a client IP; only there do a request id and a user agent belong.
const isRequestMetadata = (metadata: Json) => typeof metadata.client_ip === 'string';

/** A token issuance's times, kept as epoch seconds. */
const TIMES: ReadonlySet<string> = new Set(['issued_at', 'expires_at']);

/**
 * What the log keeps of an event: without what the envelope already says (an issuance's jti and
 * actor, request_id equal to the event id, a null user_agent), issuance times as epoch seconds.
 * Every token is a row kept for months. Lossless: `fullForm(storedForm(e))` is `e`; hash chains
 * cover what is stored, so verifying needs no knowledge of this rule.
 */
export function storedForm<Event extends EventBody>(event: Event, streamId: string): Event {
  // Key by key, never `delete`: hot path, and a deleted-from object stays slow (JSON.stringify too).
  const issuance = isIssuance(event.type) && isObject(event.data);
  let data = event.data;
  let actorOfClient: string | undefined;
  if (issuance) {
    const full = event.data as Json;
    const thinned: Record<string, unknown> = {};
    for (const key in full) {
      const value = full[key];
      if (key === 'jti' && typeof value === 'string' && streamId === tokenStreamId(value)) continue;
      const seconds = TIMES.has(key) && typeof value === 'string' ? secondsOfIso(value) : undefined;
      thinned[key] = seconds ?? value;
    }
    data = thinned;
    if (typeof full.client_id === 'string') actorOfClient = clientActor(full.client_id);
  }
  const request = isRequestMetadata(event.metadata);
  const metadata: Record<string, unknown> = {};
  for (const key in event.metadata) {
    const value = event.metadata[key];
    if (key === 'actor' && value === actorOfClient) continue;
    if (request && key === 'request_id' && value === event.eventId) continue;
    if (request && key === 'user_agent' && value === null) continue;
    metadata[key] = value;
  }
  return { ...event, data, metadata };
}

/**
 * The request an event was recorded for, in full or stored form (an issuance's is its event id);
 * undefined for an event no request caused.
 */
export function requestIdOf(event: EventBody | undefined): string | undefined {
  if (!event) return undefined;
  const { metadata } = event;
  if (typeof metadata.request_id === 'string') return metadata.request_id;
  return isRequestMetadata(metadata) ? event.eventId : undefined;
}

/** The event in full from its stored form (its SQL twin is the `audit_log` view). */
export function fullForm<Event extends EventBody & { readonly streamId: string }>(
  event: Event,
): Event {
  const { metadata, streamId } = event;
  let data = event.data;
  const restored: Record<string, unknown> = {};
  if (isIssuance(event.type) && isObject(event.data)) {
    const full: Record<string, unknown> = { ...event.data };
    let restoredData = false;
    const prefix = tokenStreamId('');
    if (full.jti === undefined && streamId.startsWith(prefix)) {
      full.jti = streamId.slice(prefix.length);
      restoredData = true;
    }
    for (const field of TIMES) {
      const seconds = full[field];
      if (typeof seconds !== 'number') continue;
      full[field] = isoOfSeconds(seconds);
      restoredData = true;
    }
    if (restoredData) data = full;
    const clientId = event.data.client_id;
    if (metadata.actor === undefined && typeof clientId === 'string') {
      restored.actor = clientActor(clientId);
    }
  }
  if (isRequestMetadata(metadata)) {
    if (metadata.request_id === undefined) restored.request_id = event.eventId;
    if (metadata.user_agent === undefined) restored.user_agent = null;
  }
  if (data === event.data && Object.keys(restored).length === 0) return event;
  return { ...event, data, metadata: { ...restored, ...metadata } };
}
