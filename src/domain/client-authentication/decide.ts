import { domainEvent, type DomainEvent, type EventMetadata } from '../events.js';
import type { Credential } from '../credential/state.js';

/** The outcome of authenticating a client by its id and secret. */
export type ClientAuthentication =
  | { readonly ok: true; readonly credential: Credential }
  | {
      readonly ok: false;
      /** Recorded so abuse of a known client shows on the dashboards (none for unknown ids). */
      readonly failure?: DomainEvent<'client-authentication-failed'>;
    };

/**
 * Authenticate a client. `secretMatches` is computed in constant time by the handler (it needs the
 * server's hashing key); the decision is what follows from it.
 */
export function decideClientAuthentication(
  command: {
    readonly secretMatches: boolean;
    readonly eventId: string;
    readonly metadata: EventMetadata;
  },
  state: Credential | undefined,
): ClientAuthentication {
  if (!state) return { ok: false };
  if (command.secretMatches && state.status === 'active') return { ok: true, credential: state };
  return {
    ok: false,
    failure: domainEvent(
      command.eventId,
      'client-authentication-failed',
      {
        client_id: state.clientId,
        reason: command.secretMatches ? 'credential_revoked' : 'secret_mismatch',
      },
      command.metadata,
    ),
  };
}

/** One client's failed authentications in one minute, as the API process counted them. */
export interface FailureWindow {
  readonly windowStart: number;
  readonly windowMs: number;
  /** Failures recorded one by one (within the per-minute event budget). */
  readonly appended: number;
  /** Failures past the budget: counted, not recorded one by one. */
  readonly failed: number;
  /** Attempts refused unchecked while the (client, IP) was locked out. */
  readonly refused: number;
  /** Source IPs (the first 50) and how many there were. */
  readonly ips: readonly string[];
  readonly ipCount: number;
}

/** Whether a failure is recorded as its own event (within the budget) or only counted. */
export function decideFailureRecording(
  window: Pick<FailureWindow, 'appended'>,
  perMinute: number,
): 'record' | 'count' {
  return window.appended < perMinute ? 'record' : 'count';
}

/**
 * The summary of a closed window: one event for everything counted past the budget, so no
 * attacker can grow the immutable log without bound. None when nothing was counted.
 */
export function decideFailureSummary(
  command: { readonly clientId: string; readonly eventId: string; readonly requestId: string },
  window: FailureWindow,
): DomainEvent<'client-authentication-failures-summarized'> | undefined {
  if (window.failed + window.refused === 0) return undefined;
  return domainEvent(
    command.eventId,
    'client-authentication-failures-summarized',
    {
      client_id: command.clientId,
      window_start: new Date(window.windowStart).toISOString(),
      window_end: new Date(window.windowStart + window.windowMs).toISOString(),
      failed: window.failed,
      refused_while_locked_out: window.refused,
      source_ips: [...window.ips],
      source_ip_count: window.ipCount,
    },
    {
      actor: 'service:failed-authentication-budget',
      request_id: command.requestId,
      client_ip: window.ips[0] ?? 'unknown',
      user_agent: null,
    },
  );
}
