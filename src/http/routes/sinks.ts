import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../../db/schema.js';
import {
  changeSink,
  createSink,
  pauseSink,
  resumeSink,
  type SinkAdminContext,
  type SinkSecret,
} from '../../commands/sink/admin.js';
import { deleteSink } from '../../commands/sink/delete.js';
import { sinkStatuses } from '../../delivery/status.js';
import { sinkTargetRequestSchema } from '../../domain/event-data/sink.js';
import type { Body } from '../openapi/responses.js';
import { sinkList, sinkStatus, sinkStatusBody, sinkWithSecret } from '../openapi/sink-responses.js';
import { answerNoStore, spaceChange } from '../respond.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { displayText, validate } from '../validate.js';

const sinkPath = z.object({ sink_id: z.string().min(1).max(100) });
const createBody = z.object({ name: displayText(200), target: sinkTargetRequestSchema });
const changeBody = z
  .object({
    name: displayText(200).optional(),
    target: sinkTargetRequestSchema.optional(),
    /** A webhook's new signing secret, shown in this answer only; the old one stops at once. */
    rotate_secret: z.boolean().optional(),
  })
  .refine(
    (body) => body.name !== undefined || body.target !== undefined || body.rotate_secret === true,
    { message: 'give name, target, rotate_secret: true, or several' },
  );

/** A space's audit sinks (webhook or syslog) and their delivery; a webhook's secret shown once. */
export function sinkRoutes(admin: SinkAdminContext, db: Kysely<Database>): readonly Route[] {
  // The sink as it stood at the change's commit, read in its transaction: a committed change is
  // never answered as a failure, and a secret made by this request is always shown, once.
  const answer = (ctx: RequestContext, made: SinkSecret, status?: number) => {
    const body = {
      ...sinkStatusBody(made.status),
      ...(made.secret ? { secret: made.secret } : {}),
    };
    answerNoStore(ctx, body satisfies Body<typeof sinkWithSecret>, status);
  };
  const named = (ctx: RequestContext) => validate(sinkPath, ctx.params, 'path').sink_id;
  const admitted = (ctx: RequestContext, who: { spaceId: string; actor: string }) => ({
    ...spaceChange(ctx, who),
    sinkId: named(ctx),
  });
  return [
    route('get', '/v1/sinks', 'space-read', {
      tag: 'Audit sinks',
      operationId: 'listSinks',
      summary: "The space's audit sinks: cursor, lag, last error, paused and why",
      responses: [{ status: 200, description: 'The sinks', schema: sinkList }],
      async handle(ctx, { spaceId }) {
        const items = (await sinkStatuses(db, { spaceId })).map(sinkStatusBody);
        answerNoStore(ctx, { items } satisfies Body<typeof sinkList>);
      },
    }),
    route('post', '/v1/sinks', 'space-change', {
      tag: 'Audit sinks',
      operationId: 'createSink',
      summary:
        "Push the space's audit trail to a webhook or syslog (a webhook's secret shown once)",
      body: { schema: createBody, media: ['json'] },
      responses: [{ status: 201, description: 'Created', schema: sinkWithSecret }],
      errors: ['conflict'],
      async handle(ctx, who, { body: { name, target } }) {
        answer(ctx, await createSink(admin, { ...spaceChange(ctx, who), name, target }), 201);
      },
    }),
    route('patch', '/v1/sinks/:sink_id', 'space-change', {
      tag: 'Audit sinks',
      operationId: 'changeSink',
      summary: "Rename a sink, point it elsewhere or rotate a webhook's secret (cursor kept)",
      params: sinkPath,
      body: { schema: changeBody, media: ['json'] },
      responses: [{ status: 200, description: 'The sink', schema: sinkWithSecret }],
      errors: ['not_found'],
      async handle(ctx, who, { body }) {
        const made = await changeSink(admin, {
          ...admitted(ctx, who),
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.target === undefined ? {} : { target: body.target }),
          rotateSecret: body.rotate_secret === true,
        });
        answer(ctx, made);
      },
    }),
    ...(['pause', 'resume'] as const).map((action) =>
      route('post', `/v1/sinks/:sink_id/${action}`, 'space-change', {
        tag: 'Audit sinks',
        operationId: `${action}Sink`,
        summary:
          action === 'pause'
            ? 'Pause delivery to a sink (its cursor kept: nothing is lost, only delayed)'
            : 'Resume delivery to a paused sink from its cursor',
        params: sinkPath,
        responses: [{ status: 200, description: 'The sink', schema: sinkStatus }],
        errors: ['not_found'],
        async handle(ctx, who) {
          const status = await (action === 'pause' ? pauseSink : resumeSink)(
            admin,
            admitted(ctx, who),
          );
          answerNoStore(ctx, sinkStatusBody(status) satisfies Body<typeof sinkStatus>);
        },
      }),
    ),
    route('delete', '/v1/sinks/:sink_id', 'space-change', {
      tag: 'Audit sinks',
      operationId: 'deleteSink',
      summary:
        'Delete a sink: nothing more is delivered to it and its secret is dropped (a DELETE again answers the same)',
      params: sinkPath,
      responses: [{ status: 204, description: 'Deleted (or deleted before)' }],
      errors: ['not_found'],
      async handle(ctx, who) {
        await deleteSink(admin, admitted(ctx, who));
        ctx.status = 204;
      },
    }),
  ];
}
