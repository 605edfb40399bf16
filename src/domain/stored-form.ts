import { clientActor } from './actors.js';
import { streams } from './streams.js';

/** The parts of an event that {@link storedForm} and {@link fullForm} look at. */
export interface EventBody {
  readonly eventId: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: Readonly<Record<string, unknown>>;
}

type Json = Readonly<Record<string, unknown>>;

const ISSUANCES: ReadonlySet<string> = new Set(['private-token-issued', 'public-token-issued']);
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
// Request metadata always has a client IP; only there do a request id and a user agent belong.
const isRequestMetadata = (metadata: Json) => typeof metadata.client_ip === 'string';

const TIMES = ['issued_at', 'expires_at'] as const;

/** An ISO time of whole seconds as seconds since the epoch; anything else as it is. */
function toSeconds(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const ms = Date.parse(value);
  return ms % 1000 === 0 && new Date(ms).toISOString() === value ? ms / 1000 : value;
}

/** Seconds since the epoch as the ISO time the domain reads. */
const fromSeconds = (seconds: number): string => new Date(seconds * 1000).toISOString();

/**
 * What the log keeps of an event appended to `streamId`: its data and metadata without what the
 * envelope already says (issue 20: every issued token is a row kept for months, so every string
 * repeated in it is paid for millions of times). Left out, and only when they are exactly what
 * {@link fullForm} derives:
 * - a token issuance's `jti`: its stream is `token-<jti>`;
 * - a token issuance's `actor`: its client, `client:<client_id>`;
 * - `request_id` when it is the event's own id (an issuance's event id is its request's id);
 * - `user_agent` when it is null.
 * And a token issuance's `issued_at` and `expires_at`, whole seconds as the JWT has them, are kept
 * as seconds since the epoch (10 digits where the ISO text took 24).
 * Lossless by construction: `fullForm(storedForm(e))` is `e`. Hash chains and exports cover what
 * is stored, so verifying needs no knowledge of this rule.
 */
export function storedForm<Event extends EventBody>(event: Event, streamId: string): Event {
  const metadata: Record<string, unknown> = { ...event.metadata };
  let data = event.data;
  if (ISSUANCES.has(event.type) && isObject(event.data)) {
    const { jti, ...withoutJti } = event.data;
    const thinned: Record<string, unknown> = withoutJti;
    if (typeof jti === 'string' && streamId !== streams.token(jti)) thinned.jti = jti;
    for (const field of TIMES) {
      if (field in thinned) thinned[field] = toSeconds(thinned[field]);
    }
    data = thinned;
    const clientId = event.data.client_id;
    if (typeof clientId === 'string' && metadata.actor === clientActor(clientId)) {
      delete metadata.actor;
    }
  }
  if (isRequestMetadata(metadata)) {
    if (metadata.request_id === event.eventId) delete metadata.request_id;
    if (metadata.user_agent === null) delete metadata.user_agent;
  }
  return { ...event, data, metadata };
}

/**
 * An event as the domain reads it, from what the log stored: puts back what {@link storedForm}
 * left out. An event stored whole (before issue 20, or by a path that does not thin it) comes
 * back unchanged. The SQL twin of this rule is the `audit_log` view.
 */
export function fullForm<Event extends EventBody & { readonly streamId: string }>(
  event: Event,
): Event {
  const { metadata, streamId } = event;
  let data = event.data;
  const restored: Record<string, unknown> = {};
  if (ISSUANCES.has(event.type) && isObject(event.data)) {
    const stored = event.data;
    const full: Record<string, unknown> = { ...stored };
    const prefix = streams.token('');
    if (stored.jti === undefined && streamId.startsWith(prefix)) {
      full.jti = streamId.slice(prefix.length);
    }
    for (const field of TIMES) {
      if (typeof stored[field] === 'number') full[field] = fromSeconds(stored[field]);
    }
    if (Object.keys(full).some((field) => full[field] !== stored[field])) data = full;
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
