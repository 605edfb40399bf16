import { decideCreateCredential } from '../../domain/credential/decide.js';
import type { ClientJwks, EventMetadata } from '../../domain/events.js';
import { generateClientId, generateClientSecret } from '../../crypto/secrets.js';
import type { CommandContext } from '../context.js';
import { appendToCredential } from './append.js';
import { overSpaceCeiling, unknownScope } from './change.js';

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
  ctx: CommandContext,
  command: {
    readonly spaceId: string;
    readonly name: string;
    readonly description: string;
    readonly userSubject: string;
    readonly loginIssuer: string;
    readonly rateLimitPerMinute?: number | null;
    /** Public keys instead of a secret: the client authenticates with private_key_jwt. */
    readonly jwks?: ClientJwks;
    /** Every public token this client issues must be DPoP-bound. */
    readonly requireDpop?: boolean;
    /** The scopes its tokens may carry; none: the catalog's defaults. */
    readonly scopes?: readonly string[];
    readonly metadata: EventMetadata;
  },
): Promise<CreatedCredential> {
  const clientId = generateClientId();
  const clientSecret = command.jwks ? null : generateClientSecret();
  const decision = decideCreateCredential({
    ...command,
    eventId: ctx.ids.eventId(),
    clientId,
    ...(clientSecret ? { secretHash: ctx.hasher.hash(clientSecret).toString('base64url') } : {}),
    spaceCeiling: ctx.spaceRateLimitPerMinute,
    catalog: ctx.scopeCatalog,
  });
  if (!decision.ok) {
    throw decision.refusal === 'invalid_scope'
      ? unknownScope(decision.detail)
      : overSpaceCeiling(ctx);
  }
  const { events } = decision;
  const created = await appendToCredential(
    ctx,
    { spaceId: command.spaceId, clientId },
    undefined,
    events,
  );
  return {
    clientId,
    clientSecret,
    spaceId: command.spaceId,
    name: command.name,
    description: command.description,
    createdAt: new Date(created.createdAt),
    scopes: created.scopes ?? [],
  };
}
