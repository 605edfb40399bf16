/** Who may manage and read a Shared Signals stream through SSF 1.0 §8 (issue 65). */
import { scopeWords } from '#verifier/scope.js';
import { MIN_VERIFICATION_INTERVAL_SECONDS, STREAMS_SCOPE } from '../security-signals.js';
import { ownedBySpace } from './spaces-and-roles.js';
import { credentialActive } from './tokens.js';

/** A receiver's token manages streams when it carries the scope (its audience: the verifier's). */
export function mayManageStreams(token: { readonly scope?: string | undefined }): boolean {
  return scopeWords(token.scope).includes(STREAMS_SCOPE);
}

/**
 * A stream is its receiver's: the client that made it, in its space (SSF 1.0 §8 "associate a
 * Receiver with one or more stream IDs"). Anyone else's, an admin's, an operator's: not its.
 */
export function streamOfReceiver(
  stream: { readonly spaceId: string | null; readonly receiver?: string | undefined },
  receiver: { readonly spaceId: string; readonly clientId: string },
): boolean {
  return (
    stream.receiver !== undefined &&
    stream.receiver === receiver.clientId &&
    ownedBySpace(stream, receiver.spaceId)
  );
}

/** How many streams one receiver may have: one (SSF 1.0 §8.1.1.1 allows a 409 for a second). */
export const STREAMS_PER_RECEIVER = 1;

/** An admin's pause over one already made (the receiver's, the deliverer's) is recorded anew. */
export const adminPauseTakesOver = (asked: string, current: string | null | undefined): boolean =>
  asked === 'admin' && current !== 'admin';

/** A receiver resumes what it or the deliverer paused, never what a space's admin paused. */
export const receiverMayResume = (pauseReason: string | null | undefined): boolean =>
  pauseReason !== 'admin';

/** Seconds until a receiver may ask for another verification; 0: now (SSF 1.0 §8.1.4.2). */
export function verificationWait(lastAt: number | undefined, now: number): number {
  if (lastAt === undefined) return 0;
  const left = lastAt + MIN_VERIFICATION_INTERVAL_SECONDS * 1000 - now;
  return left > 0 ? Math.ceil(left / 1000) : 0;
}

/**
 * A receiver's stream is delivered while its receiver stands: its credential active, of the
 * stream's space, still granted the scope. Revoked or narrowed, its stream waits (pushes stop).
 */
export function receiverStands(
  credential:
    | {
        readonly status: string;
        readonly spaceId: string;
        readonly scopes: readonly string[] | null;
      }
    | undefined,
  spaceId: string | null,
): boolean {
  return (
    credentialActive(credential) &&
    spaceId !== null &&
    ownedBySpace(credential, spaceId) &&
    (credential.scopes ?? []).includes(STREAMS_SCOPE)
  );
}

/**
 * A receiver is a tenant's client, not its admin: the operator's allowances for admins' sinks
 * (SINK_ALLOW_TARGETS, ALLOW_HTTP_HOSTS) are not its to use, at creation or at any connect.
 */
export const receiverTargetRules = <Rules extends { readonly allowHttpHosts: readonly string[] }>(
  rules: Rules,
): Rules => ({ ...rules, allowTargets: [], allowHttpHosts: [] });
