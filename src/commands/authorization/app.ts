import { accept } from '../../domain/decision.js';
import { commandEvent, parseRecorded, streams, type Asked } from '../../domain/events.js';
import type { CommandContext } from '../context.js';
import { handle, type Decider } from '../handle.js';
import { authorizationRows } from './requests.js';

/** A space's authorization app: where the browser is sent to sign in and decide. */
interface App {
  readonly interactionUrl: string | undefined;
  readonly version: number;
}

type AppCommand = Asked & { readonly spaceId: string; readonly interactionUrl: string };
type AppPorts = Pick<CommandContext, 'events' | 'authorizations'>;

const rowKey = (spaceId: string) => `app-${spaceId}`;

/** The space's interaction URL, as set now; undefined: the space takes no authorization requests. */
export async function authorizationApp(
  ctx: Pick<CommandContext, 'authorizations'>,
  spaceId: string,
): Promise<string | undefined> {
  const row = await authorizationRows(ctx).read(rowKey(spaceId));
  return row && (row.state as { interactionUrl: string }).interactionUrl;
}

const appDecider = (ports: AppPorts): Decider<AppCommand, App> => ({
  stream: ({ spaceId }) => ({ spaceId, stream: streams.authorizationApp(spaceId) }),
  load: async ({ spaceId }) => {
    const row = await authorizationRows(ports).read(rowKey(spaceId));
    if (!row) return { state: { interactionUrl: undefined, version: 0 } };
    const { interactionUrl } = row.state as { interactionUrl: string };
    return { state: { interactionUrl, version: row.version }, version: row.version };
  },
  decide: (command) =>
    accept([
      commandEvent(command, 'authorization-app-set', {
        interaction_url: command.interactionUrl,
      }),
    ]),
  evolve: (_state, event) => ({
    interactionUrl: parseRecorded<'authorization-app-set'>(event).data.interaction_url,
    version: event.streamPosition,
  }),
  inline: ({ authorizationState }, { interactionUrl, version }, { spaceId }) =>
    authorizationState({
      spaceId,
      key: rowKey(spaceId),
      state: { interactionUrl },
      version,
      expiresAt: null,
    }),
  refusals: {},
  conflict: { then: 'retry', message: "the space's authorization app changed meanwhile; retry" },
});

/** Sets the page the space's customers sign in and decide on (`authorization-app-set`). */
export async function setAuthorizationApp(ctx: AppPorts, command: AppCommand): Promise<void> {
  await handle(ctx.events, appDecider(ctx), command);
}
