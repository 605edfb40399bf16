import { domainEvent, serviceMetadata, type Asked, type DomainEvent } from '../events.js';
import type { Credential } from '../credential/state.js';
import { windowBounds, type BudgetWindow } from '../budget-window.js';
import { accept, refuse, type Decision } from '../decision.js';
import { credentialActive } from '../policy.js';

/** A client's active credential, or a refusal with the failure to record (none for unknown ids). */
export type ClientAuthentication = Decision<
  DomainEvent<'client-authentication-failed'>,
  'invalid_client',
  Credential
>;

/** Authenticate a client; `secretMatches` is compared in constant time by the handler. */
export function decideClientAuthentication(
  command: Asked & {
    readonly secretMatches: boolean;
    /** How the client proved itself: a secret, or a signed assertion (private_key_jwt). */
    readonly method?: 'secret' | 'assertion';
    /** A refused trusted issuer's assertion: the claim at fault. */
    readonly claim?: string;
  },
  state: Credential | undefined,
): ClientAuthentication {
  if (!state) return refuse('invalid_client');
  if (command.secretMatches && credentialActive(state)) return accept([], state);
  return refuse('invalid_client', [
    domainEvent(
      command.eventId,
      'client-authentication-failed',
      {
        client_id: state.clientId,
        reason: command.secretMatches
          ? 'credential_revoked'
          : command.method === 'assertion'
            ? 'assertion_invalid'
            : 'secret_mismatch',
        ...(command.claim === undefined ? {} : { claim: command.claim }),
      },
      command.metadata,
    ),
  ]);
}

/** A closed window's one summary event, so no attacker grows the immutable log without bound. */
export function decideFailureSummary(
  command: { readonly clientId: string; readonly eventId: string; readonly requestId: string },
  window: BudgetWindow,
): Decision<DomainEvent<'client-authentication-failures-summarized'>> {
  const failed = window.counts.failed ?? 0;
  const refused = window.counts.refused ?? 0;
  if (failed + refused === 0) return accept([]);
  const event = domainEvent(
    command.eventId,
    'client-authentication-failures-summarized',
    {
      client_id: command.clientId,
      ...windowBounds(window),
      failed,
      refused_while_locked_out: refused,
      source_ips: [...window.ips],
      source_ip_count: window.ipCount,
    },
    serviceMetadata(
      'service:failed-authentication-budget',
      command.requestId,
      window.ips[0] ?? 'unknown',
    ),
  );
  return accept([event]);
}
