import type { PrivateTokenClaims } from '../../crypto/access-tokens.js';
import { clientActor } from '../../domain/actors.js';
import { decideRequestVerification } from '../../domain/sink/decide.js';
import type { SinkRefusal, SinkState } from '../../domain/sink/decide.js';
import { MIN_VERIFICATION_INTERVAL_SECONDS } from '../../domain/security-signals.js';
import type { WithSinkWrites } from '../../delivery/sink-writes.js';
import { InvalidTokenError, RateLimitedError } from '../../errors/errors.js';
import type { CommandContext } from '../context.js';
import { handleLocked, type LockedDecider, type Placed } from '../handle.js';
import { credentialsBehind } from '../token/standing.js';
import { tokenStands } from '../token/introspect.js';
import type { SinkAdminContext, SinkCommand } from './admin.js';
import { notFound, placedByDecision, type SinkChange } from './deciders.js';

/** A Shared Signals receiver: the client a stream-management token names, in its space. */
export interface StreamReceiver {
  readonly spaceId: string;
  readonly clientId: string;
}

/** What checking a receiver's token reads: its standing, and the client's budget. */
export type ReceiverPorts = Parameters<typeof tokenStands>[0] & Pick<CommandContext, 'limits'>;

/**
 * The receiver a verified token names, once it still stands (not revoked, its credential active
 * and still granting the scope) and one unit of its client's budget is spent: every management
 * call and poll is a request like a token's.
 */
export async function standingReceiver(
  ctx: ReceiverPorts,
  claims: PrivateTokenClaims,
): Promise<StreamReceiver> {
  // Read once: the standing and the budget are the same credential's.
  const behind = await credentialsBehind(ctx, claims);
  if (!(await tokenStands(ctx, claims, behind))) {
    throw new InvalidTokenError('this token was revoked, or its credential or scope withdrawn');
  }
  const [credential] = behind;
  if (!credential) throw new InvalidTokenError('the credential behind this token is gone');
  ctx.limits.clientRequest(credential);
  return { spaceId: claims.space_id, clientId: claims.client_id };
}

/** A receiver's change, recorded as its client's, with where the request came from. */
export const receiverMetadata = (
  receiver: StreamReceiver,
  origin: Omit<SinkCommand['metadata'], 'actor'>,
): SinkCommand['metadata'] => ({ actor: clientActor(receiver.clientId), ...origin });

/** A receiver's command about one of its streams. */
export const receiverCommand = (
  receiver: StreamReceiver,
  sinkId: string,
  origin: Omit<SinkCommand['metadata'], 'actor'>,
): SinkCommand => ({
  spaceId: receiver.spaceId,
  receiver: receiver.clientId,
  sinkId,
  metadata: receiverMetadata(receiver, origin),
});

/** A receiver's verification request, at most one a minute per stream, timed under its lock. */
const verificationDecider: LockedDecider<
  SinkChange & { readonly now: number; readonly state?: string },
  SinkState | undefined,
  SinkRefusal | 'too_soon',
  Placed,
  WithSinkWrites
> = {
  // The receiver's last verification on any stream: deleting one and making another waits too.
  load: async ({ sinks }, command) => {
    const sink = await sinks.lockedSink(command.sinkId);
    if (!sink?.receiver || sink.spaceId === null) return sink;
    const last = await sinks.lastVerification(sink.spaceId, sink.receiver);
    return last === undefined ? sink : { ...sink, verificationRequestedAt: last };
  },
  decide: (command, sink) => decideRequestVerification(command, sink),
  stream: placedByDecision,
  refusals: {
    ...notFound,
    too_soon: (_command, wait) =>
      new RateLimitedError(
        `one verification per ${MIN_VERIFICATION_INTERVAL_SECONDS} s per stream (min_verification_interval)`,
        {
          policy: 'stream-verification',
          quota: 1,
          windowSeconds: MIN_VERIFICATION_INTERVAL_SECONDS,
          retryAfterSeconds: Number(wait ?? MIN_VERIFICATION_INTERVAL_SECONDS),
        },
      ),
  },
  inline: ({ sinks }, command) =>
    sinks.verificationRequested(command.sinkId, new Date(command.now)),
};

/**
 * SSF 1.0 §8.1.4.2: a verification event on the receiver's stream, recorded on its space's log
 * so the stream's own delivery (push or poll) sends it in order, `state` echoed.
 */
export async function requestVerification(
  ctx: SinkAdminContext & Pick<CommandContext, 'clock'>,
  command: SinkCommand & { readonly state?: string },
): Promise<void> {
  const asked = { ...command, eventId: ctx.ids.eventId(), now: ctx.clock.now() };
  await handleLocked(ctx.events, verificationDecider, asked, async () => undefined);
}
