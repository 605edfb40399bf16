import { clientDomain, credentialActive, ownedBySpace } from '../../domain/policy.js';
import {
  isMetadataClientId,
  metadataClientIdRefusal,
} from '../../domain/metadata-client/decide.js';
import { UnavailableError } from '../../errors/errors.js';
import { fetchBusy } from '#outbound/guarded-fetcher.js';
import { isClientIdShaped } from '../../crypto/secrets.js';
import type { CommandContext } from '../context.js';

/** A client that may start the code flow in a space: its redirect URIs and its own words. */
export interface CodeFlowClient {
  readonly clientId: string;
  readonly redirectUris: readonly string[];
  readonly about: {
    readonly name?: string;
    readonly logoUri?: string;
    readonly clientUri?: string;
  };
}

/**
 * The code-flow client `clientId` names in the space, or why none: a credential of the space with
 * redirect URIs, or a public client's (`none`) metadata document on a domain the space allows,
 * fetched under the SSRF rules. Each request for a document, anyone's, spends a budget of its own
 * per domain and address (never the client's or space's).
 */
export async function codeFlowClient(
  ctx: Pick<CommandContext, 'metadataClients' | 'limits' | 'credentials'>,
  spaceId: string,
  clientId: string,
  ip: string,
): Promise<CodeFlowClient | { readonly refused: string }> {
  if (!isMetadataClientId(clientId)) return registeredClient(ctx, spaceId, clientId, ip);
  const ports = ctx.metadataClients;
  if (!ports) {
    return { refused: 'client_id: this service takes no client ID metadata documents' };
  }
  const badId = metadataClientIdRefusal(clientId);
  if (badId) return { refused: `client_id ${badId}` };
  const allowed = await ports.domain(spaceId, clientDomain(clientId)!);
  if (!allowed)
    return { refused: `client_id: ${clientDomain(clientId)} is not allowed in this space` };
  // A flood of requests is refused before any fetch.
  ctx.limits.authorizationRequest(`${spaceId}\u0000${clientDomain(clientId)}`, ip);
  const document = await ports.documents.clientAt(clientId, { spaceId }).catch((error: unknown) => {
    const why = `client_id: its document: ${(error as Error).message}`;
    if (fetchBusy(error)) throw new UnavailableError(why);
    return { refused: why };
  });
  if ('refused' in document) return document;
  // A keyed client would have to authenticate at the token endpoint: not taken here yet.
  if (document.jwks.keys.length > 0) {
    return {
      refused: 'client_id: only public clients (token_endpoint_auth_method none) use this endpoint',
    };
  }
  return { clientId, redirectUris: document.redirectUris, about: document.about };
}

/**
 * A credential of the space with redirect URIs registered: a confidential code-flow client, which
 * authenticates when it redeems its code. Its requests spend a budget per client and address.
 */
async function registeredClient(
  ctx: Pick<CommandContext, 'limits' | 'credentials'>,
  spaceId: string,
  clientId: string,
  ip: string,
): Promise<CodeFlowClient | { readonly refused: string }> {
  // Only an id of ours is looked up: any other text costs no query and no cache entry.
  const credential = isClientIdShaped(clientId) ? await ctx.credentials.find(clientId) : undefined;
  if (!credential || !ownedBySpace(credential, spaceId) || !credentialActive(credential)) {
    return { refused: 'client_id: no active client of that id in this space' };
  }
  if (credential.redirectUris.length === 0) {
    return { refused: 'client_id: the client registered no redirect_uris: it takes no codes' };
  }
  ctx.limits.authorizationRequest(`${spaceId}\u0000${clientId}`, ip);
  return { clientId, redirectUris: credential.redirectUris, about: { name: credential.name } };
}
