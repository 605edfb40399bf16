import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { signalSigner } from '../../crypto/signal-signing.js';
import type { Database } from '../../db/schema.js';
import { pollSignals, type SignalPoll, type SignalPollPorts } from '../../delivery/signal-poll.js';
import { recordSignalsDelivered } from '../../commands/sink/signal-deliveries.js';
import { clientActor, streamSecretActor } from '../../domain/actors.js';
import { standingReceiver } from '../../commands/sink/receiver-streams.js';
import type { RequestContext } from '../state.js';
import { requestMetadata } from '../request-context.js';
import { streamId } from './ssf-stream-shapes.js';
import { RateLimitedError } from '../../errors/errors.js';
import { route, type Route } from '../route.js';

const jti = z.string().min(1).max(200);
/** RFC 8936 §2.4's poll request; what it does not name is left alone. */
const pollRequest = z.object({
  maxEvents: z.number().int().min(0).max(1000).optional(),
  returnImmediately: z.boolean().optional(),
  ack: z.array(jti).max(1000).optional(),
  setErrs: z
    .record(jti, z.object({ err: z.string().max(100), description: z.string().max(1000) }))
    .refine((errs) => Object.keys(errs).length <= 1000, 'at most 1000 SET errors')
    .optional(),
});

/** RFC 8936 §2.5's answer: SETs by jti, and whether more wait. */
const pollAnswer = z.object({
  sets: z.record(z.string(), z.string()),
  moreAvailable: z.boolean(),
});

/**
 * POST /v1/ssf/poll/{sink_id}: an admin's polled Shared Signals stream's SETs for its receiver,
 * who holds its secret (RFC 8936); POST /v1/ssf/streams/{stream_id}/poll: a receiver's own
 * stream, read with its stream-management token (SSF 1.0 §7.1.1). Signed here by the space's own
 * ring, as the deliverer signs pushed ones.
 */
export function signalPollRoutes(commands: CommandContext, db: Kysely<Database>): readonly Route[] {
  const spaces = commands.spaceKeys;
  if (!spaces) return [];
  const ports = { db, kek: commands.kek, signer: signalSigner(spaces.store, commands.issuer) };
  // One poll of a stream at a time in this process: a receiver's parallel polls would read,
  // sign and race the same SETs (across replicas, the cursor's compare-and-set keeps order).
  const polling = new Set<string>();
  const poll = async (
    ctx: RequestContext,
    streamId: string,
    body: z.infer<typeof pollRequest>,
    who: SignalPoll['who'],
  ) => {
    if (polling.has(streamId)) {
      throw new RateLimitedError('a poll of this stream is under way: poll again after it', {
        policy: 'signal-poll',
        quota: 1,
        windowSeconds: 1,
        retryAfterSeconds: 1,
      });
    }
    polling.add(streamId);
    const actor =
      'receiver' in who ? clientActor(who.receiver.clientId) : streamSecretActor(streamId);
    const origin = { actor, ...requestMetadata(ctx) };
    const delivered: SignalPollPorts['delivered'] = ({ sinkId, spaceId }, sets) =>
      recordSignalsDelivered(commands, {
        spaceId,
        metadata: origin,
        delivered: { sink_id: sinkId, method: 'poll', sets: [...sets] },
      });
    const answer = await pollSignals(
      { ...ports, delivered },
      {
        streamId,
        who,
        maxEvents: body.maxEvents ?? 10,
        acknowledged: body.ack ?? [],
        refused: new Map(
          Object.entries(body.setErrs ?? {}).map(([jti, { err }]) => [jti, err.slice(0, 64)]),
        ),
      },
    ).finally(() => polling.delete(streamId));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = answer satisfies z.infer<typeof pollAnswer>;
  };
  const common = {
    tag: 'Audit sinks',
    body: { schema: pollRequest, media: ['json'] },
    responses: [{ status: 200, description: 'SETs by jti', schema: pollAnswer }],
  } as const;
  return [
    route('post', '/v1/ssf/poll/:sink_id', 'public', {
      ...common,
      operationId: 'pollSignals',
      summary:
        "The next Security Event Tokens of an admin's polled Shared Signals stream, and acknowledgement of those taken (RFC 8936)",
      description:
        "`Authorization: Bearer <the stream's secret>`. Acknowledged SETs (`ack`, and those in `setErrs`) are not sent again; the others are, in log order, until they are. Answers at once (`returnImmediately` is not waited on).",
      params: z.object({ sink_id: streamId }),
      errors: ['invalid_request', 'invalid_token', 'rate_limited', 'unavailable'],
      async handle(ctx, _auth, { params: { sink_id: id }, body }) {
        await poll(ctx, id, body, { authorization: ctx.get('authorization') || undefined });
      },
    }),
    route('post', '/v1/ssf/streams/:stream_id/poll', 'stream-receiver', {
      ...common,
      operationId: 'pollReceiverStream',
      summary:
        "The next Security Event Tokens of a receiver's own polled stream (RFC 8936, SSF 1.0 §7.1.1)",
      description:
        'With a stream-management token (audience `<TOKEN_ISSUER>/v1/ssf`, scope `ssf:streams`) of the client that made the stream; otherwise as `pollSignals`.',
      params: z.object({ stream_id: streamId }),
      errors: [
        'invalid_request',
        'invalid_token',
        'insufficient_scope',
        'rate_limited',
        'unavailable',
      ],
      async handle(ctx, { privateToken }, { params: { stream_id: id }, body }) {
        const receiver = await standingReceiver(commands, privateToken);
        await poll(ctx, id, body, { receiver });
      },
    }),
  ];
}
