import { redirectUriRefusal } from '#oauth-authorize/redirect-uri.js';
import { accept, refuse, type Decision } from '../decision.js';
import { domainEvent, streams, type Asked, type DomainEvent, type Placed } from '../events.js';
import { roomForOne, type SpaceCount } from '../policy.js';

/** A space's allowed domain as its row holds it. */
export interface MetadataClientDomain {
  readonly spaceId: string;
  readonly domain: string;
  /** The scopes its clients may get; null: the catalog's defaults. */
  readonly scopes: readonly string[] | null;
  /** Its documents' requests a minute, all together. */
  readonly budgetPerMinute: number;
  readonly removed: boolean;
}

/** A domain's budget when its admin names none: every URL under it is one client of this size. */
export const DEFAULT_DOMAIN_BUDGET_PER_MINUTE = 600;

/** The one budget and failure count of every document under a space's allowed domain. */
export const domainBudgetKey = (spaceId: string, domain: string) =>
  `metadata-domain:${spaceId}:${domain}`;

/** Who asks, where, about which domain. */
export interface DomainCommand extends Asked {
  readonly spaceId: string;
  readonly domain: string;
}

const placed = (command: DomainCommand): Placed => ({
  spaceId: command.spaceId,
  stream: streams.metadataDomainChange(command.domain, command.eventId),
});

/** An admin allows a domain's metadata clients (again, with other scopes); nothing when the same. */
export function decideAllowDomain(
  command: DomainCommand & {
    readonly scopes?: readonly string[];
    readonly budgetPerMinute: number;
    readonly domains?: SpaceCount;
  },
  state: MetadataClientDomain | undefined,
): Decision<DomainEvent<'metadata-client-domain-allowed'>, 'domain_limit', Placed> {
  const scopes = command.scopes ? [...command.scopes] : undefined;
  const budget = command.budgetPerMinute;
  if (!(state && !state.removed) && !roomForOne(command.domains)) return refuse('domain_limit');
  const live = state && !state.removed && state.budgetPerMinute === budget;
  if (live && JSON.stringify(state.scopes ?? undefined) === JSON.stringify(scopes)) {
    return accept([], placed(command));
  }
  const data = { domain: command.domain, ...(scopes ? { scopes } : {}), budget_per_minute: budget };
  const event = domainEvent(
    command.eventId,
    'metadata-client-domain-allowed',
    data,
    command.metadata,
  );
  return accept([event], placed(command));
}

/** An admin stops allowing a domain; removing a removed one records nothing. */
export function decideRemoveDomain(
  command: DomainCommand,
  state: MetadataClientDomain | undefined,
): Decision<DomainEvent<'metadata-client-domain-removed'>, 'not_found', Placed> {
  if (!state) return refuse('not_found');
  if (state.removed) return accept([], placed(command));
  const event = domainEvent(
    command.eventId,
    'metadata-client-domain-removed',
    { domain: command.domain },
    command.metadata,
  );
  return accept([event], placed(command));
}

/** Whether `clientId` names a metadata document (a URL): the policy's word, said once. */
export { isMetadataClientId } from '../policy.js';

/** Why `clientId` cannot be a metadata document URL (the draft's §3), or undefined. */
export function metadataClientIdRefusal(clientId: string): string | undefined {
  if (!URL.canParse(clientId)) return 'not a URL';
  const url = new URL(clientId);
  if (url.protocol !== 'https:') return 'must be an https URL';
  if (url.hash || clientId.includes('#')) return 'must have no fragment';
  if (url.username || url.password) return 'must have no user or password';
  if (url.pathname === '/' || /\/\.\.?(\/|$)/.test(clientId)) return 'needs a path, no . or ..';
  if (url.href !== clientId) return `must be written as ${url.href}`;
  return undefined;
}

/** What the document says of itself, as far as the token endpoint cares. */
export interface MetadataDocument {
  readonly client_id: string;
  readonly token_endpoint_auth_method?: string;
  readonly client_secret?: unknown;
  readonly jwks?: unknown;
  readonly jwks_uri?: string;
  readonly redirect_uris?: readonly string[];
}

/** Why a fetched document cannot name the client at `url` (client_id not the URL, a secret, no keys). */
export function metadataDocumentRefusal(
  url: string,
  document: MetadataDocument,
): string | undefined {
  if (document.client_id !== url) return 'its client_id is not its URL';
  if (document.client_secret !== undefined) return 'it holds a client_secret';
  const badRedirect = document.redirect_uris?.find((uri) => redirectUriRefusal(uri));
  if (badRedirect) return `its redirect_uri ${badRedirect} ${redirectUriRefusal(badRedirect)}`;
  const method = document.token_endpoint_auth_method ?? 'private_key_jwt';
  const keys = (document.jwks === undefined ? 0 : 1) + (document.jwks_uri === undefined ? 0 : 1);
  // A public client (OAuth 2.1 §2.1) has no keys and uses only the code flow: redirect URIs.
  if (method === 'none') {
    if (keys > 0) return 'a public client (token_endpoint_auth_method none) gives no keys';
    if (!document.redirect_uris?.length) return 'a public client must give redirect_uris';
    return undefined;
  }
  if (method !== 'private_key_jwt') {
    return 'its token_endpoint_auth_method is not private_key_jwt or none';
  }
  if (keys !== 1) return 'it must give jwks or jwks_uri, one of them';
  return undefined;
}

/** A document's first use in a space: one stream per (space, URL), so it is appended once. */
export function decideFirstSeen(
  command: Asked & {
    readonly spaceId: string;
    readonly clientId: string;
    readonly thumbprints: readonly string[];
  },
): { readonly event: DomainEvent<'metadata-client-first-seen'>; readonly placed: Placed } {
  const data = {
    client_id: command.clientId,
    domain: new URL(command.clientId).hostname,
    key_thumbprints: [...command.thumbprints],
  };
  return {
    event: domainEvent(command.eventId, 'metadata-client-first-seen', data, command.metadata),
    placed: {
      spaceId: command.spaceId,
      stream: streams.metadataClient(command.spaceId, command.clientId),
    },
  };
}
