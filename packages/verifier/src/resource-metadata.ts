import { z } from 'zod';
import { DPOP_ALGORITHMS } from './dpop.js';
import { declaredScopes } from './required-scopes.js';

/**
 * RFC 9728 protected-resource metadata: what a client (an MCP client, an agent) reads to learn
 * which authorization server issues tokens for this resource, and how to present them.
 */
export interface ProtectedResourceMetadata {
  readonly resource: string;
  readonly authorization_servers: readonly string[];
  readonly scopes_supported?: readonly string[];
  /** The kit reads the `Authorization` header only (RFC 6750 §2.1), never a form or a query. */
  readonly bearer_methods_supported: readonly ['header'];
  readonly dpop_signing_alg_values_supported: readonly string[];
  readonly dpop_bound_access_tokens_required: boolean;
  readonly resource_name?: string;
  readonly resource_documentation?: string;
  readonly resource_policy_uri?: string;
  readonly resource_tos_uri?: string;
}

/** What a resource server says of itself in its metadata (`createVerifier({ resourceMetadata })`). */
export interface ResourceMetadataOptions {
  /**
   * This resource's identifier (RFC 9728 §1.2, the RFC 8707 `resource` clients ask tokens for):
   * an https URL without query or fragment, `https://api.example.com/mcp`. Plain http only for a
   * loopback host (tests, local development).
   */
  readonly resource: string;
  /** The scopes worth asking for here (`scopes_supported`); omitted when not given. */
  readonly scopesSupported?: readonly string[];
  /** Whether every token must be DPoP-bound here (default false: the kit takes both). */
  readonly dpopBoundAccessTokensRequired?: boolean;
  readonly resourceName?: string;
  readonly resourceDocumentation?: string;
  readonly resourcePolicyUri?: string;
  readonly resourceTosUri?: string;
  /**
   * Serve the metadata at the host's root (`/.well-known/oauth-protected-resource`) as well as at
   * §3.1's path-suffixed URL, for clients that fall back to the root (the MCP SDK does). Default
   * false: a strict client must refuse metadata whose `resource` is not the one it asked about.
   */
  readonly alsoAtRoot?: boolean;
}

/** The metadata a verifier serves, where, and the URL its challenges name. */
export interface ResourceMetadata {
  /** RFC 9728 §3.1's URL of the metadata: the challenges' `resource_metadata`. */
  readonly url: string;
  /** The request paths the metadata is served at (the first is `url`'s). */
  readonly paths: readonly string[];
  readonly document: ProtectedResourceMetadata;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const resourceSchema = z
  .url()
  .refine((text) => {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  }, 'must be an https URL (http only for a loopback host)')
  .refine((text) => !text.includes('#') && !text.includes('?'), 'must have no query or fragment');
const optionalUrl = z.url().optional();
const optionsSchema = z.object({
  resource: resourceSchema,
  resourceDocumentation: optionalUrl,
  resourcePolicyUri: optionalUrl,
  resourceTosUri: optionalUrl,
  resourceName: z.string().optional(),
});

/**
 * RFC 9728 §3.1: the well-known path goes between the host and the resource's path, so that
 * `https://api.example.com/mcp` is described at `https://api.example.com/.well-known/oauth-protected-resource/mcp`.
 */
export function resourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname;
  return new URL(`${WELL_KNOWN}${path}`, url.origin).href;
}

/**
 * The metadata of a verifier for `issuer`'s tokens. Throws a TypeError for a malformed option:
 * a resource server finds it at startup, not from a client.
 */
export function resourceMetadataOf(
  issuer: string,
  options: ResourceMetadataOptions,
): ResourceMetadata {
  const parsed = optionsSchema.safeParse(options);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(`resourceMetadata.${issue?.path.join('.')}: ${issue?.message}`);
  }
  const scopes = declaredScopes(options.scopesSupported);
  const url = resourceMetadataUrl(options.resource);
  const path = new URL(url).pathname;
  const document: ProtectedResourceMetadata = {
    resource: options.resource,
    authorization_servers: [issuer],
    ...(options.scopesSupported === undefined ? {} : { scopes_supported: scopes }),
    bearer_methods_supported: ['header'],
    dpop_signing_alg_values_supported: DPOP_ALGORITHMS,
    dpop_bound_access_tokens_required: options.dpopBoundAccessTokensRequired ?? false,
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined
      ? {}
      : { resource_documentation: options.resourceDocumentation }),
    ...(options.resourcePolicyUri === undefined
      ? {}
      : { resource_policy_uri: options.resourcePolicyUri }),
    ...(options.resourceTosUri === undefined ? {} : { resource_tos_uri: options.resourceTosUri }),
  };
  const paths = options.alsoAtRoot && path !== WELL_KNOWN ? [path, WELL_KNOWN] : [path];
  return { url, paths, document };
}
