import { generateClientId, generateClientSecret } from '../../crypto/secrets.js';
import type { CommandContext } from '../context.js';
import { handle } from '../handle.js';
import {
  createCredentialDecider,
  type CreateCredential,
  type CredentialPorts,
} from './deciders.js';

/** The new credential, with its secret: the only time the secret is ever available. */
export interface CreatedCredential {
  readonly clientId: string;
  /** Null for a secretless client (it authenticates with its keys). */
  readonly clientSecret: string | null;
  readonly spaceId: string;
  readonly name: string;
  readonly description: string;
  readonly createdAt: Date;
  /** The scopes it allows (empty with an empty catalog). */
  readonly scopes: readonly string[];
}

/** Creates a client credential in a space: credential-created, with its read-model row. */
export async function createCredential(
  ctx: CredentialPorts & Pick<CommandContext, 'events' | 'hasher'>,
  /** The credential asked for; its id and secret (or keys) are made here. */
  command: Omit<CreateCredential, 'clientId' | 'secretHash'>,
): Promise<CreatedCredential> {
  const clientId = generateClientId();
  const clientSecret = command.jwks ? null : generateClientSecret();
  const { state: created } = await handle(ctx.events, createCredentialDecider(ctx), {
    ...command,
    clientId,
    ...(clientSecret ? { secretHash: ctx.hasher.hash(clientSecret).toString('base64url') } : {}),
  });
  return {
    clientId,
    clientSecret,
    spaceId: command.spaceId,
    name: command.name,
    description: command.description,
    createdAt: new Date(created!.createdAt),
    scopes: created!.scopes ?? [],
  };
}
