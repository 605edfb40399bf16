import { decideCreateCredential } from '../domain/decisions.js';
import { streams, type EventMetadata } from '../domain/events.js';
import { ConflictError } from '../errors/errors.js';
import { projectCredentialEvents } from '../projections/credentials.js';
import { generateClientId, generateClientSecret } from '../tokens/secrets.js';
import type { CommandContext } from './context.js';

/** The new credential, with its secret: the only time the secret is ever available. */
export interface CreatedCredential {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly spaceId: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: Date;
}

/** Creates a client credential in a space: append credential-created, project it inline. */
export async function createCredential(
  ctx: CommandContext,
  command: {
    readonly spaceId: string;
    readonly name: string;
    readonly description: string;
    readonly userSubject: string;
    readonly loginIssuer: string;
    readonly rateLimitPerMinute?: number | null;
    readonly metadata: EventMetadata;
  },
): Promise<CreatedCredential> {
  const clientId = generateClientId();
  const clientSecret = generateClientSecret();
  const event = decideCreateCredential(
    { ...command, clientId, secretHash: ctx.hasher.hash(clientSecret).toString('base64url') },
    ctx.ids,
  );
  const result = await ctx.events.append(
    {
      spaceId: command.spaceId,
      streamId: streams.credential(clientId),
      expectedVersion: 'no_stream',
      events: [event],
    },
    projectCredentialEvents,
  );
  if (!result.ok) throw new ConflictError('credential id collision; retry the request');
  return {
    clientId,
    clientSecret,
    spaceId: command.spaceId,
    name: command.name,
    description: command.description,
    createdAt: result.events[0]!.recordedAt,
  };
}
