import { DELIVERY_METHODS, streamsAudience } from '../../domain/security-signals.js';
import { z } from 'zod';
import type { CommandContext } from '../../commands/context.js';
import { enableSpaceKeys, endSwitchOver } from '../../commands/signing-key/change-keys.js';
import type { SpaceSigning } from '../../commands/signing-key/space-signing.js';
import { spaceIssuer } from '#verifier/issuer-keys.js';
import type { ScopeCatalog } from '../../domain/scope-catalog.js';
import { NotFoundError } from '../../errors/errors.js';
import { SPACE_ID_PATTERN } from '../authentication.js';
import { authorizationServerMetadata, jwks } from '../openapi/responses.js';
import { route, type Route } from '../route.js';
import type { RequestContext } from '../state.js';
import { validate } from '../validate.js';
import { discoveryMetadata } from './discovery.js';
import { JWKS_MAX_AGE } from './jwks.js';

const spacePath = z.object({ space_id: z.string().regex(SPACE_ID_PATTERN) });

const spaceKeysEnabled = z.object({
  space_id: z.string(),
  /** What the space's tokens carry as `iss`, and what a resource server configures. */
  issuer: z.string(),
  jwks_uri: z.string(),
});

/** OpenID Shared Signals 1.0 §7.1: a transmitter's metadata. */
const ssfConfiguration = z.object({
  spec_version: z.literal('1_0'),
  issuer: z.string(),
  jwks_uri: z.string(),
  delivery_methods_supported: z.array(z.string()),
  configuration_endpoint: z.string(),
  status_endpoint: z.string(),
  verification_endpoint: z.string(),
  authorization_schemes: z.array(z.object({ spec_urn: z.string() })),
  default_subjects: z.literal('ALL'),
});

const switchOverEnded = z.object({ space_id: z.string(), switch_over: z.literal('ended') });

/** The space named in the path, when it signs with keys of its own; else 404. */
async function spaceWithOwnKeys(ctx: RequestContext, spaces: SpaceSigning): Promise<string> {
  const { space_id: spaceId } = validate(spacePath, ctx.params, 'path');
  if (!(await spaces.store.hasKeys(spaceId))) {
    throw new NotFoundError('this space has no keys of its own');
  }
  return spaceId;
}

/**
 * A space's own issuer: its JWKS and its metadata (where RFC 8414 §3.1 puts it for an issuer with
 * a path), public, 404 for a space on the shared keys; and the admin's switch that turns it on.
 */
export function spaceKeyRoutes(
  commands: CommandContext,
  issuer: string,
  catalog: ScopeCatalog,
): readonly Route[] {
  const spaces = commands.spaceKeys;
  if (!spaces) return [];
  const publicRoute = { tag: 'Verification', params: spacePath, errors: ['not_found'] } as const;
  const metadata = async (ctx: RequestContext) => {
    const spaceId = await spaceWithOwnKeys(ctx, spaces);
    ctx.set('Cache-Control', 'public, max-age=3600');
    const own = spaceIssuer(issuer, spaceId);
    const authorize = commands.authorizations ? `${own}/authorize` : undefined;
    ctx.body = discoveryMetadata(own, issuer, catalog, authorize);
  };
  const metadataResponse = [
    { status: 200, description: 'Metadata', schema: authorizationServerMetadata },
  ] as const;
  return [
    route('get', '/spaces/:space_id/.well-known/jwks.json', 'public', {
      ...publicRoute,
      operationId: 'spaceJwks',
      summary: "The public keys of a space's own issuer: they verify its tokens only",
      responses: [{ status: 200, description: 'JWK set', schema: jwks }],
      async handle(ctx) {
        const spaceId = await spaceWithOwnKeys(ctx, spaces);
        ctx.set('Cache-Control', `public, max-age=${JWKS_MAX_AGE}`);
        ctx.body = (await spaces.store.ring(spaceId)).jwks();
      },
    }),
    route('get', '/.well-known/oauth-authorization-server/spaces/:space_id', 'public', {
      ...publicRoute,
      operationId: 'spaceAuthorizationServerMetadata',
      summary: "RFC 8414 metadata of a space's own issuer (§3.1: the issuer's path appended)",
      responses: metadataResponse,
      handle: metadata,
    }),
    route('get', '/spaces/:space_id/.well-known/openid-configuration', 'public', {
      ...publicRoute,
      operationId: 'spaceOpenidConfiguration',
      summary: "The same metadata where OpenID Connect clients look for a space's issuer",
      responses: metadataResponse,
      handle: metadata,
    }),
    route('get', '/.well-known/ssf-configuration/spaces/:space_id', 'public', {
      ...publicRoute,
      operationId: 'spaceSsfConfiguration',
      summary:
        "OpenID Shared Signals 1.0 metadata of a space's own issuer, the transmitter of its signal streams",
      responses: [{ status: 200, description: 'Metadata', schema: ssfConfiguration }],
      async handle(ctx) {
        const own = spaceIssuer(issuer, await spaceWithOwnKeys(ctx, spaces));
        ctx.set('Cache-Control', 'public, max-age=3600');
        // The same endpoints for every space: the receiver's token names its space (SSF §8.1).
        const ssf = streamsAudience(issuer);
        ctx.body = {
          spec_version: '1_0',
          issuer: own,
          jwks_uri: `${own}/.well-known/jwks.json`,
          delivery_methods_supported: Object.values(DELIVERY_METHODS),
          configuration_endpoint: `${ssf}/stream`,
          status_endpoint: `${ssf}/status`,
          verification_endpoint: `${ssf}/verify`,
          // OAuth 2.0 bearer or DPoP tokens for that audience, with the ssf:streams scope.
          authorization_schemes: [
            { spec_urn: 'urn:ietf:rfc:6749' },
            { spec_urn: 'urn:ietf:rfc:9449' },
          ],
          default_subjects: 'ALL',
        } satisfies z.infer<typeof ssfConfiguration>;
      },
    }),
    route('post', '/v1/space/signing-keys', 'space-change', {
      tag: 'Verification',
      operationId: 'enableSpaceKeys',
      summary: 'Turns on an issuer and signing keys of the space its own (idempotent)',
      responses: [
        { status: 200, description: "The space's issuer and JWKS", schema: spaceKeysEnabled },
      ],
      async handle(ctx, { spaceId, actor }) {
        const asked = { actor, origin: ctx.ip, requestId: ctx.state.requestId };
        await enableSpaceKeys(commands.events, spaceId, asked, spaces.maker);
        await spaces.store.forget(spaceId);
        const own = spaceIssuer(issuer, spaceId);
        ctx.body = {
          space_id: spaceId,
          issuer: own,
          jwks_uri: `${own}/.well-known/jwks.json`,
        } satisfies z.infer<typeof spaceKeysEnabled>;
      },
    }),
    route('post', '/v1/space/signing-keys/end-switch-over', 'space-change', {
      tag: 'Verification',
      operationId: 'endSpaceKeySwitchOver',
      summary: 'Honours no shared-ring token of the space from now on (the shared key leaked)',
      errors: ['not_found'],
      responses: [{ status: 200, description: 'Ended', schema: switchOverEnded }],
      async handle(ctx, { spaceId, actor }) {
        await endSwitchOver(commands.events, spaceId, {
          actor,
          origin: ctx.ip,
          requestId: ctx.state.requestId,
        });
        ctx.body = { space_id: spaceId, switch_over: 'ended' };
      },
    }),
  ];
}
