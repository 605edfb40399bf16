import type { z } from 'zod';
import type { EventMetadata } from '../../../domain/events.js';
import { TOKEN_ISSUANCES, type IssuanceEvent } from '../../../domain/token/issuances.js';
import type { RateLimitState } from '../../../limits/limits.js';
import type { DpopProof } from '../../../crypto/dpop.js';
import type { ClientProof } from '../../client-authentication/proof.js';
import type { CommandContext } from '../../context.js';

/** A token a grant's request presents, as its verified claims say it is bound (RFC 7800 cnf). */
export interface PresentedToken {
  readonly token: string;
  readonly claims: { readonly cnf?: { readonly jkt: string } };
}

/** What the token endpoint hands a grant: its own fields checked against its schema. */
export interface GrantRequest<Fields> {
  readonly fields: Fields;
  /** How the client proved who it is, when it did (always, for a grant that requires it). */
  readonly client: ClientProof | undefined;
  /**
   * The request's DPoP proof, checked when asked for; undefined when none was sent. A presented
   * DPoP-bound token needs a proof by its key with `ath` its hash (RFC 9449 §4.3).
   */
  readonly dpop: (presented?: PresentedToken) => Promise<DpopProof | undefined>;
  /** X-Service-Space-ID, for a grant that names a space. */
  readonly spaceId: string | undefined;
  /** Where the request came from; the grant names the actor once it knows the client. */
  readonly origin: Omit<EventMetadata, 'actor'>;
}

/** A grant's answer: the token response's body and the client's budget after it. */
export interface GrantResponse {
  readonly body: Readonly<Record<string, string | number>>;
  readonly rateLimit: RateLimitState;
}

/** One way in at the token endpoint: the route dispatches on `grantType`. */
export interface Grant<Schema extends z.ZodObject = z.ZodObject> {
  /** The `grant_type` value (RFC 6749 §4.4, RFC 8693 §2.1, …). */
  readonly grantType: string;
  /** What the OpenAPI document and discovery say of it. */
  readonly summary: string;
  /** `when-sent`: checked only when sent, the grant's own evidence being the authority. */
  readonly clientAuthentication: 'required' | 'when-sent';
  /** A `client_id` sent alone (RFC 6749 §2.1's public client) names the client, no secret. */
  readonly publicClients?: boolean;
  /** Whether X-Service-Space-ID is required. */
  readonly space: 'required' | 'none';
  /** Its request fields, beside `grant_type` and client authentication. */
  readonly schema: Schema;
  /** Synonyms folded before the schema is checked (RFC 8707's `resource` for `audience`). */
  readonly normalize?: (body: Readonly<Record<string, unknown>>) => Record<string, unknown>;
  /** The event every success appends. */
  readonly issues: IssuanceEvent;
  handle(ctx: CommandContext, request: GrantRequest<z.infer<Schema>>): Promise<GrantResponse>;
}

/** Declares a grant, typed by its schema (the registry holds grants of every schema). */
export function defineGrant<Schema extends z.ZodObject>(grant: Grant<Schema>): Grant {
  return grant as unknown as Grant;
}

/** The kind of token a grant issues: read from its issuance event, never declared twice. */
export const tokenKindOfGrant = (grant: Grant) => TOKEN_ISSUANCES[grant.issues];
