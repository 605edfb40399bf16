import { decideCreateCredential } from '../../domain/credential/decide.js';
import type { EventMetadata } from '../../domain/events.js';
import { generateClientId, generateClientSecret } from '../../tokens/secrets.js';
import type { CommandContext } from '../context.js';
import { appendToCredential } from './append.js';

/** The new credential, with its secret: the only time the secret is ever available. */
export interface CreatedCredential {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly spaceId: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: Date;
}

/** Creates a client credential in a space: credential-created, with its read-model row. */
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
  const event = decideCreateCredential({
    ...command,
    eventId: ctx.ids.eventId(),
    clientId,
    secretHash: ctx.hasher.hash(clientSecret).toString('base64url'),
  });
  const created = await appendToCredential(ctx, { spaceId: command.spaceId, clientId }, undefined, [
    event,
  ]);
  return {
    clientId,
    clientSecret,
    spaceId: command.spaceId,
    name: command.name,
    description: command.description,
    createdAt: new Date(created.createdAt),
  };
}
