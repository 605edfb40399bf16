import type { ScopeCatalog } from '../../src/domain/scope-catalog.js';
import {
  decideCreateCredential,
  decideRevokeCredential,
} from '../../src/domain/credential/decide.js';
import type { Credential } from '../../src/domain/credential/state.js';
import type { DomainEvent, EventType, Recorded } from '../../src/domain/events.js';

/**
 * Given/when/then for the pure deciders: `given` folds past events through `evolve` into the
 * state a decision is asked in, as the handler's stored snapshot would hold it.
 */
export function given<State, Next extends State, Type extends EventType>(
  evolve: (state: State, event: Recorded<Type>) => Next,
  initial: State,
  events: readonly DomainEvent[],
  options: { readonly spaceId?: string; readonly at?: number } = {},
): Next {
  if (events.length === 0) throw new Error('given: no events');
  return events.reduce<State>(
    (state, event, index) =>
      evolve(state, {
        type: event.type,
        data: event.data,
        spaceId: options.spaceId ?? 'space-a',
        streamPosition: index + 1,
        recordedAt: new Date((options.at ?? Date.parse('2026-11-22T00:00:00Z')) + index * 1000),
      } as Recorded<Type>),
    initial,
  ) as Next;
}

/** Metadata as a request would carry it. */
export const metadata = {
  actor: 'user:alice',
  request_id: 'req-1',
  client_ip: '192.0.2.1',
  user_agent: 'test',
} as const;

/** Distinct, readable ids for events and tokens. */
export function sequentialIds(prefix = '00000000-0000-7000-8000-') {
  let n = 0;
  return () => `${prefix}${String(++n).padStart(12, '0')}`;
}

/** credential-created for client `ci_1` in space-a, as a dashboard user would create it. */
export function credentialCreated(
  eventId: string,
  options: {
    readonly secretHash?: string;
    readonly rateLimitPerMinute?: number | null;
    readonly requireDpop?: boolean;
    readonly scopes?: readonly string[];
    readonly catalog?: ScopeCatalog;
  } = {},
) {
  const decision = decideCreateCredential({
    eventId,
    metadata,
    clientId: 'ci_1',
    secretHash: options.secretHash ?? Buffer.alloc(32).toString('base64url'),
    name: 'storefront',
    description: 'web shop',
    userSubject: 'alice',
    loginIssuer: 'https://login.test',
    rateLimitPerMinute: options.rateLimitPerMinute ?? null,
    requireDpop: options.requireDpop,
    spaceCeiling: 120_000,
    scopes: options.scopes,
    catalog: options.catalog ?? {},
  });
  if (!decision.ok) throw new Error('a creation is never refused');
  return decision.events[0]!;
}

/** The events that revoke `state` (credential ci_1 of space-a). */
export function credentialRevoked(eventId: string, state: Credential) {
  const decision = decideRevokeCredential(
    {
      spaceId: 'space-a',
      clientId: 'ci_1',
      actor: 'user:alice',
      metadata,
      eventId,
      reason: 'leaked',
    },
    state,
  );
  if (!decision.ok) throw new Error('expected a revocation');
  return decision.events;
}
