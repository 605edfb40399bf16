import type { Kysely } from 'kysely';
import { z } from 'zod';
import {
  changeSink,
  createSink,
  pauseSink,
  resumeSink,
  type SinkAdminContext,
} from '../../commands/sink/admin.js';
import { deleteSink } from '../../commands/sink/delete.js';
import {
  receiverCommand,
  receiverMetadata,
  requestVerification,
  standingReceiver,
  type StreamReceiver,
} from '../../commands/sink/receiver-streams.js';
import type { CommandContext } from '../../commands/context.js';
import type { Database } from '../../db/schema.js';
import { loadSink, type SinkDefinition } from '../../delivery/sinks.js';
import { receiverStreamIds } from '../../delivery/status.js';
import { streamsAudience } from '../../domain/security-signals.js';
import { streamOfReceiver } from '../../domain/policy.js';
import { spaceIssuer } from '#verifier/issuer-keys.js';
import { InvalidRequestError, NotFoundError } from '../../errors/errors.js';
import { requestMetadata } from '../request-context.js';
import { answerNoStore } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import {
  configurationOf,
  requestedTarget,
  requireTransmitterFields,
  streamConfiguration,
  streamId,
  streamRequest,
  statusOf,
  statusRequest,
  streamStatus,
  verifyRequest,
  unnamed,
  withSignals,
  type StreamPlaces,
} from './ssf-stream-shapes.js';

const streamQuery = z.object({ stream_id: streamId });
const optionalStreamQuery = z.object({ stream_id: streamId.optional() });
const changeRequest = streamRequest.extend({ stream_id: streamId });

const ERRORS = [
  'invalid_request',
  'invalid_token',
  'insufficient_scope',
  'not_found',
  'rate_limited',
] as const;
const common = { tag: 'Shared Signals', errors: [...ERRORS] };

/**
 * OpenID Shared Signals 1.0 §8: a receiver makes, reads, changes, pauses, verifies and deletes
 * its own stream with a stream-management token (policy `stream-receiver`). A stream is a sink
 * like an admin's, delivered by the same machinery; a receiver sees its own alone, any other
 * (another client's, another space's, an admin's) answers as none.
 */
export function ssfStreamRoutes(
  commands: CommandContext,
  admin: SinkAdminContext,
  db: Kysely<Database>,
): readonly Route[] {
  const placesOf = (receiver: StreamReceiver): StreamPlaces => ({
    issuer: spaceIssuer(commands.issuer, receiver.spaceId),
    pollUrl: (id) => `${streamsAudience(commands.issuer)}/streams/${id}/poll`,
  });
  const digest = (text: string) => commands.hasher.hash(text);
  /** The receiver's stream, or 404 for anything else: none tells another's from a missing one. */
  const ownStream = async (receiver: StreamReceiver, id: string): Promise<SinkDefinition> => {
    const sink = await loadSink(db, commands.kek, id);
    if (!sink || !streamOfReceiver(sink, receiver)) {
      throw new NotFoundError('no stream of that id for this receiver');
    }
    return sink;
  };
  const configured = (receiver: StreamReceiver) => (sink: SinkDefinition) =>
    configurationOf(sink, receiver.clientId, placesOf(receiver));
  const answer = async (ctx: RequestContext, receiver: StreamReceiver, id: string, status = 200) =>
    answerNoStore(ctx, configured(receiver)(await ownStream(receiver, id)), status);
  const command = (ctx: RequestContext, receiver: StreamReceiver, id: string) =>
    receiverCommand(receiver, id, requestMetadata(ctx));
  /** PATCH and PUT: SSF 1.0 §8.1.1.3 keeps what is not sent, §8.1.1.4 drops it. */
  const change = async (
    ctx: RequestContext,
    receiver: StreamReceiver,
    body: z.infer<typeof changeRequest>,
    replace: boolean,
  ) => {
    const sink = await ownStream(receiver, body.stream_id);
    const current = configured(receiver)(sink);
    requireTransmitterFields(body, current);
    const pollUrl = placesOf(receiver).pollUrl(sink.sinkId);
    const events = replace
      ? body.events_requested
      : (body.events_requested ?? current.events_requested);
    const delivery = replace || body.delivery ? body.delivery : undefined;
    const next =
      delivery === undefined && !replace
        ? { target: withSignals(sink.target, events ?? []), header: undefined }
        : requestedTarget({ delivery, events_requested: events }, { pollUrl, digest });
    // Not sent on a PATCH: the name as it stands under the lock (an admin's rename kept).
    const name = body.description ?? (replace ? unnamed(receiver.clientId) : undefined);
    await changeSink(admin, {
      ...command(ctx, receiver, sink.sinkId),
      ...(name === undefined ? {} : { name }),
      target: next.target,
      expectedTarget: sink.target,
      ...(next.header === undefined ? {} : { givenSecret: next.header }),
    });
    await answer(ctx, receiver, sink.sinkId);
  };

  return [
    route('post', '/v1/ssf/stream', 'stream-receiver', {
      ...common,
      operationId: 'createSignalStream',
      summary: "A receiver's Shared Signals stream, pushed or polled (SSF 1.0 §8.1.1.1)",
      description:
        'One stream per receiver (409 for a second). No `delivery`: polled. `events_requested` URIs this service does not send are ignored. `authorization_header` is sent verbatim with every push, never shown again.',
      body: { schema: streamRequest, media: ['json'] },
      responses: [{ status: 201, description: 'Created', schema: streamConfiguration }],
      errors: [...ERRORS, 'conflict'],
      async handle(ctx, { privateToken }, { body }) {
        const receiver = await standingReceiver(commands, privateToken);
        const { target, header } = requestedTarget(body, { digest });
        const made = await createSink(admin, {
          spaceId: receiver.spaceId,
          receiver: receiver.clientId,
          metadata: receiverMetadata(receiver, requestMetadata(ctx)),
          name: body.description ?? unnamed(receiver.clientId),
          target,
          ...(header === null ? {} : { givenSecret: header }),
        });
        await answer(ctx, receiver, made.sinkId, 201);
      },
    }),
    route('get', '/v1/ssf/stream', 'stream-receiver', {
      ...common,
      operationId: 'readSignalStreams',
      summary: "A receiver's stream, or all of them without `stream_id` (SSF 1.0 §8.1.1.2)",
      query: optionalStreamQuery,
      responses: [
        {
          status: 200,
          description: 'The stream, or a list',
          schema: z.union([streamConfiguration, z.array(streamConfiguration)]),
        },
      ],
      async handle(ctx, { privateToken }, input) {
        const receiver = await standingReceiver(commands, privateToken);
        const { stream_id: id } = input.query;
        if (id !== undefined) return answer(ctx, receiver, id);
        const ids = await receiverStreamIds(db, receiver);
        const streams = await Promise.all(ids.map((one) => ownStream(receiver, one)));
        answerNoStore(ctx, streams.map(configured(receiver)));
      },
    }),
    ...(['patch', 'put'] as const).map((method) =>
      route(method, '/v1/ssf/stream', 'stream-receiver', {
        ...common,
        operationId: method === 'patch' ? 'updateSignalStream' : 'replaceSignalStream',
        summary:
          method === 'patch'
            ? "Change a receiver's stream; what is not sent stays (SSF 1.0 §8.1.1.3)"
            : "Replace a receiver's stream; what is not sent goes (SSF 1.0 §8.1.1.4)",
        body: { schema: changeRequest, media: ['json'] },
        responses: [{ status: 200, description: 'The stream', schema: streamConfiguration }],
        errors: [...ERRORS, 'conflict'],
        async handle(ctx, { privateToken }, { body }) {
          const receiver = await standingReceiver(commands, privateToken);
          await change(ctx, receiver, body, method === 'put');
        },
      }),
    ),
    route('delete', '/v1/ssf/stream', 'stream-receiver', {
      ...common,
      operationId: 'deleteSignalStream',
      summary: "Delete a receiver's stream (SSF 1.0 §8.1.1.5)",
      query: streamQuery,
      responses: [{ status: 204, description: 'Deleted' }],
      async handle(ctx, { privateToken }, input) {
        const receiver = await standingReceiver(commands, privateToken);
        await deleteSink(admin, command(ctx, receiver, input.query.stream_id));
        ctx.status = 204;
      },
    }),
    route('get', '/v1/ssf/status', 'stream-receiver', {
      ...common,
      operationId: 'readSignalStreamStatus',
      summary: "A receiver's stream: enabled or paused (SSF 1.0 §8.1.2.1)",
      query: streamQuery,
      responses: [{ status: 200, description: 'Its status', schema: streamStatus }],
      async handle(ctx, { privateToken }, input) {
        const receiver = await standingReceiver(commands, privateToken);
        answerNoStore(ctx, statusOf(await ownStream(receiver, input.query.stream_id)));
      },
    }),
    route('post', '/v1/ssf/status', 'stream-receiver', {
      ...common,
      operationId: 'updateSignalStreamStatus',
      summary: "Pause or enable a receiver's stream; paused holds its events (SSF 1.0 §8.1.2.2)",
      description:
        "`disabled` is refused: a paused stream holds its events, and nothing here drops them. A stream the space's administrator paused is enabled by them alone (403).",
      body: { schema: statusRequest, media: ['json'] },
      responses: [{ status: 200, description: 'Its status', schema: streamStatus }],
      async handle(ctx, { privateToken }, { body }) {
        const receiver = await standingReceiver(commands, privateToken);
        if (body.status === 'disabled') {
          throw new InvalidRequestError('status: disabled is not offered; pause holds events', [
            { field: 'status', message: 'enabled or paused' },
          ]);
        }
        const asked = command(ctx, receiver, body.stream_id);
        await (body.status === 'paused'
          ? pauseSink(admin, { ...asked, ...(body.reason ? { note: body.reason } : {}) })
          : resumeSink(admin, asked));
        answerNoStore(ctx, statusOf(await ownStream(receiver, body.stream_id)));
      },
    }),
    route('post', '/v1/ssf/verify', 'stream-receiver', {
      ...common,
      operationId: 'verifySignalStream',
      summary:
        "A verification event on a receiver's stream, `state` echoed, at most one a minute (SSF 1.0 §8.1.4.2)",
      body: { schema: verifyRequest, media: ['json'] },
      responses: [{ status: 204, description: 'Recorded; its SET follows on the stream' }],
      async handle(ctx, { privateToken }, { body }) {
        const receiver = await standingReceiver(commands, privateToken);
        await requestVerification(
          { ...admin, clock: commands.clock },
          {
            ...command(ctx, receiver, body.stream_id),
            ...(body.state === undefined ? {} : { state: body.state }),
          },
        );
        ctx.status = 204;
      },
    }),
  ];
}
