import type { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { authorizationApp, setAuthorizationApp } from '../../commands/authorization/app.js';
import { authorizationAppSetSchema } from '../../domain/event-data/authorization.js';
import { NotFoundError } from '../../errors/errors.js';
import { answerNoStore, spaceChange } from '../respond.js';
import { route, type Route } from '../route.js';

const app = authorizationAppSetSchema;

/** A space's authorization app, for its dashboard users: the page customers consent on. */
export function authorizationAppRoutes(commands: CommandContext): readonly Route[] {
  if (!commands.authorizations) return [];
  const common = { tag: 'Authorization' } as const;
  return [
    route('get', '/v1/authorization-app', 'space-read', {
      ...common,
      operationId: 'readAuthorizationApp',
      summary: "Where the space's customers sign in and consent to an agent's request",
      responses: [{ status: 200, description: 'The app', schema: app }],
      errors: ['not_found'],
      async handle(ctx, { spaceId }) {
        const url = await authorizationApp(commands, spaceId);
        if (!url) throw new NotFoundError('this space has no authorization app');
        answerNoStore(ctx, { interaction_url: url } satisfies z.infer<typeof app>);
      },
    }),
    route('post', '/v1/authorization-app', 'space-change', {
      ...common,
      operationId: 'setAuthorizationApp',
      summary:
        'Set the page /authorize sends the browser to, with ?authorization_request=<id> (turns the endpoint on)',
      body: { schema: app, media: ['json'] },
      responses: [{ status: 200, description: 'Set', schema: app }],
      async handle(ctx, who, { body }) {
        await setAuthorizationApp(commands, {
          ...spaceChange(ctx, who),
          eventId: commands.ids.eventId(),
          interactionUrl: body.interaction_url,
        });
        answerNoStore(ctx, body);
      },
    }),
  ];
}
