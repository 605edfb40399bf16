import { randomBytes } from 'node:crypto';
import type { EventMetadata } from '../../domain/events.js';
import type { IdGenerator } from '../../domain/ports.js';
import type { ScopeCatalog } from '../../domain/scope-catalog.js';
import { allowedScopes } from '../../domain/policy.js';
import type { TrustedIssuerDefinition } from '../../domain/event-data/trusted-issuer.js';
import type { RuleCredential, TrustedIssuerState } from '../../domain/trusted-issuer/decide.js';
import { targetRefusal, type TargetRules } from '#outbound/target-rules.js';
import type { EventStore } from '#event-log/event-store.js';
import { ConflictError, InvalidRequestError } from '../../errors/errors.js';
import {
  isOperatorIssuerId,
  type OperatorIssuer,
} from '../../domain/trusted-issuer/operator-issuers.js';
import type { CredentialLookup } from '../../projections/credential-lookup.js';
import type { WithIssuerWrites } from '../../projections/trusted-issuers.js';
import { handleLocked } from '../handle.js';
import { addIssuerDecider, changeIssuerDecider, removeIssuerDecider } from './deciders.js';

/** What a space admin's trusted-issuer commands use. */
export interface IssuerAdminContext {
  readonly events: Pick<EventStore<WithIssuerWrites>, 'transact'>;
  readonly ids: IdGenerator;
  readonly credentials: Pick<CredentialLookup, 'findFresh'>;
  readonly scopeCatalog: ScopeCatalog;
  /** The audiences naming this service: its issuer identifier and its token endpoint's URL. */
  readonly ours: readonly string[];
  /** JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS. */
  readonly lifetimeCeiling: number;
  /** The sinks' SSRF rules, which a JWKS URL is held to as a webhook's is. */
  readonly rules: TargetRules;
  /** TRUSTED_ISSUERS: listed to their spaces, never changed by their admins. */
  readonly operator?: readonly OperatorIssuer[];
  /** TRUSTED_ISSUER_MAX_PER_SPACE, METADATA_DOMAIN_MAX_PER_SPACE. */
  readonly maxIssuers: number;
  readonly maxDomains: number;
  /** Drops this process's cached issuers of a space once a change committed. */
  readonly forget?: (spaceId: string) => void;
}

/** Who asks, in which space. */
export interface IssuerAsk {
  readonly spaceId: string;
  readonly metadata: EventMetadata;
}

/** A trusted issuer's id: `tis_` and 96 random bits. */
const newIssuerId = () => `tis_${randomBytes(12).toString('base64url')}`;

/** Why this deployment would not fetch a JWKS URL (the sinks' SSRF rules), or undefined. */
export const jwksUriRefusal = (url: string, rules: TargetRules) =>
  targetRefusal({ kind: 'webhook', url }, rules);

/** A 400 when this deployment would not fetch the JWKS URL. */
function reachable(ctx: IssuerAdminContext, definition: TrustedIssuerDefinition): void {
  if (definition.jwks_uri === undefined) return;
  const refusal = jwksUriRefusal(definition.jwks_uri, ctx.rules);
  if (refusal) {
    throw new InvalidRequestError(`jwks_uri refused: ${refusal}`, [
      { field: 'jwks_uri', message: refusal },
    ]);
  }
}

/** The rules' credentials as they stand, for the decision to hold the rules to. */
async function ruleCredentials(
  ctx: IssuerAdminContext,
  definition: TrustedIssuerDefinition,
): Promise<ReadonlyMap<string, RuleCredential>> {
  const found = new Map<string, RuleCredential>();
  for (const clientId of new Set(definition.rules.map((rule) => rule.client_id))) {
    const credential = await ctx.credentials.findFresh(clientId);
    if (credential) {
      found.set(clientId, {
        spaceId: credential.spaceId,
        status: credential.status,
        allows: allowedScopes(ctx.scopeCatalog, credential),
      });
    }
  }
  return found;
}

async function judged(
  ctx: IssuerAdminContext,
  ask: IssuerAsk,
  issuerId: string,
  definition: TrustedIssuerDefinition,
) {
  reachable(ctx, definition);
  return {
    ...ask,
    issuerId,
    definition,
    eventId: ctx.ids.eventId(),
    ours: ctx.ours,
    lifetimeCeiling: ctx.lifetimeCeiling,
    maxIssuers: ctx.maxIssuers,
    credentials: await ruleCredentials(ctx, definition),
  };
}

const state = (
  command: { spaceId: string; issuerId: string },
  definition: TrustedIssuerDefinition,
) =>
  ({
    issuerId: command.issuerId,
    spaceId: command.spaceId,
    definition,
    removed: false,
  }) satisfies TrustedIssuerState;

/** Trusts an issuer in the admin's space: `trusted-issuer-added`, naming who. */
export async function addTrustedIssuer(
  ctx: IssuerAdminContext,
  ask: IssuerAsk & { readonly definition: TrustedIssuerDefinition },
): Promise<TrustedIssuerState> {
  const command = await judged(ctx, ask, newIssuerId(), ask.definition);
  const added = await handleLocked(ctx.events, addIssuerDecider, command, async () =>
    state(command, command.definition),
  );
  ctx.forget?.(ask.spaceId);
  return added;
}

/** A 409 for an operator's issuer: the deployment's settings hold it, not the space. */
function notOperators(issuerId: string): void {
  if (isOperatorIssuerId(issuerId)) {
    throw new ConflictError(
      "declared by the operator (TRUSTED_ISSUERS): only the deployment's settings change it",
    );
  }
}

/** Replaces an issuer's definition: `trusted-issuer-changed` (nothing when it is the same). */
export async function changeTrustedIssuer(
  ctx: IssuerAdminContext,
  ask: IssuerAsk & { readonly issuerId: string; readonly definition: TrustedIssuerDefinition },
): Promise<TrustedIssuerState> {
  notOperators(ask.issuerId);
  const command = await judged(ctx, ask, ask.issuerId, ask.definition);
  const changed = await handleLocked(ctx.events, changeIssuerDecider, command, async () =>
    state(command, command.definition),
  );
  ctx.forget?.(ask.spaceId);
  return changed;
}

/** Stops trusting an issuer: `trusted-issuer-removed` (nothing when removed before). */
export async function removeTrustedIssuer(
  ctx: IssuerAdminContext,
  ask: IssuerAsk & { readonly issuerId: string },
): Promise<void> {
  notOperators(ask.issuerId);
  await handleLocked(
    ctx.events,
    removeIssuerDecider,
    { ...ask, eventId: ctx.ids.eventId() },
    async () => undefined,
  );
  ctx.forget?.(ask.spaceId);
}
