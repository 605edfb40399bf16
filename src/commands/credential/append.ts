import type { Credential } from '../../domain/credential/state.js';
import { evolveCredential, type CredentialEvent } from '../../domain/credential/evolve.js';
import { parseRecorded, streams, type DomainEvent } from '../../domain/events.js';
import { ConflictError } from '../../errors/errors.js';
import type { InlineWrites } from '../../projections/inline-writes.js';
import type { CommandContext } from '../context.js';

/**
 * Appends a credential's events at the version its state was read at, and writes the state
 * `evolve` makes of them as the read model row in the same transaction; 409 if anything changed
 * the credential since. The change then holds at once on this instance (its cache entry is
 * dropped) and within CREDENTIAL_CACHE_TTL_MS on the others. Returns the new state.
 */
export async function appendToCredential(
  ctx: CommandContext,
  target: { readonly spaceId: string; readonly clientId: string },
  state: Credential | undefined,
  events: readonly DomainEvent<CredentialEvent['type']>[],
  alsoInTransaction?: (writes: InlineWrites) => Promise<void>,
): Promise<Credential> {
  let next = state;
  const appended = await ctx.events.append(
    {
      spaceId: target.spaceId,
      streamId: streams.credential(target.clientId),
      expectedVersion: state?.version ?? 'no_stream',
      events,
    },
    async (writes, recorded) => {
      next = recorded
        .map((event) => parseRecorded<CredentialEvent['type']>(event))
        .reduce(evolveCredential, state);
      await writes.credential(next!);
      await alsoInTransaction?.(writes);
    },
  );
  if (!appended.ok) throw new ConflictError('the credential changed meanwhile; retry the request');
  ctx.credentials.forget(target.clientId);
  if (!next) throw new Error('appendToCredential: no state after append');
  return next;
}
