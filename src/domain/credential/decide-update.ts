import { accept } from '../decision.js';
import type { ClientJwks, DomainEvent } from '../events.js';
import type { ScopeCatalog } from '../scope-catalog.js';
import {
  decideChangeKeys,
  decideChangeRateLimit,
  decideChangeRedirectUris,
  decideChangeScopes,
  type CredentialDecision,
  type LifecycleCommand,
} from './decide.js';
import type { Credential } from './state.js';

/** The changes one request asks of a credential at once (PATCH): any of them. */
export type CredentialUpdate =
  | 'credential-keys-changed'
  | 'credential-scopes-changed'
  | 'credential-rate-limit-changed'
  | 'credential-redirect-uris-changed';

/** Several changes decided on the same state: all of them, or none when any is refused. */
export function decideUpdateCredential(
  command: Omit<LifecycleCommand, 'eventId'> & {
    readonly eventIds: () => string;
    readonly jwks?: ClientJwks;
    readonly scopes?: readonly string[];
    readonly rateLimitPerMinute?: number | null;
    readonly redirectUris?: readonly string[];
    readonly catalog: ScopeCatalog;
    readonly spaceCeiling: number;
  },
  state: Credential | undefined,
): CredentialDecision<CredentialUpdate> {
  const parts: Array<() => CredentialDecision<CredentialUpdate>> = [];
  if (command.jwks) {
    const jwks = command.jwks;
    parts.push(() => decideChangeKeys({ ...command, eventId: command.eventIds(), jwks }, state));
  }
  if (command.scopes) {
    const scopes = command.scopes;
    parts.push(() =>
      decideChangeScopes({ ...command, eventId: command.eventIds(), scopes }, state),
    );
  }
  if (command.rateLimitPerMinute !== undefined) {
    const rateLimitPerMinute = command.rateLimitPerMinute;
    parts.push(() =>
      decideChangeRateLimit({ ...command, eventId: command.eventIds(), rateLimitPerMinute }, state),
    );
  }
  if (command.redirectUris) {
    const redirectUris = command.redirectUris;
    parts.push(() =>
      decideChangeRedirectUris({ ...command, eventId: command.eventIds(), redirectUris }, state),
    );
  }
  const events: DomainEvent<CredentialUpdate>[] = [];
  for (const part of parts) {
    const decision = part();
    if (!decision.ok) return decision;
    events.push(...decision.events);
  }
  return accept(events);
}
