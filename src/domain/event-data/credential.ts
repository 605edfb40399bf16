import { z } from 'zod';
import { SCOPE_MAX_LENGTH } from '#verifier/scope.js';
import { redirectUriRefusal } from '#oauth-authorize/redirect-uri.js';
import type { SecuritySignal } from '../security-signals.js';
import { declareEvent } from './declaration.js';

/** A credential's allowed scopes (catalog names, RFC 6749 §3.3 words), at most 100. */
export const scopeListSchema = z.array(z.string().min(1).max(SCOPE_MAX_LENGTH)).max(100);

/** A client's public signing key (RFC 7517): never a private member. */
export const clientPublicJwkSchema = z
  .object({
    kty: z.enum(['EC', 'OKP', 'RSA']),
    kid: z.string().max(200).optional(),
    alg: z.string().max(20).optional(),
    use: z.literal('sig').optional(),
    crv: z.string().max(20).optional(),
    x: z.string().max(2000).optional(),
    y: z.string().max(2000).optional(),
    n: z.string().max(2000).optional(),
    e: z.string().max(20).optional(),
  })
  .strict();

/** The keys a secretless client signs its assertions with (private_key_jwt, RFC 7523). */
export const clientJwksSchema = z.object({ keys: z.array(clientPublicJwkSchema).min(1).max(5) });
/** A secretless client's keys. */
export type ClientJwks = z.infer<typeof clientJwksSchema>;

/** Where a code-flow client's browser may be sent back (OAuth 2.1 §2.3.1), at most 10. */
export const redirectUrisSchema = z
  .array(
    z
      .string()
      .max(2000)
      .superRefine((uri, ctx) => {
        const refused = redirectUriRefusal(uri);
        if (refused) ctx.addIssue({ code: 'custom', message: `redirect URI ${refused}` });
      }),
  )
  .min(1)
  .max(10);

/** Overrides CLIENT_RATE_LIMIT_PER_MINUTE for this client; null: the default. */
const rateLimit = z.number().int().min(1).max(1_000_000_000).nullable();

/** A credential created: its client's id, name and how it authenticates. */
export const credentialCreatedSchema = z.object({
  client_id: z.string(),
  name: z.string(),
  description: z.string(),
  /** HMAC-SHA-256 of the secret under the server key, base64url; absent for a keys-only client. */
  secret_hash: z.string().optional(),
  /** The public keys of a secretless client (private_key_jwt). */
  jwks: clientJwksSchema.optional(),
  /** Every public token this client issues must be DPoP-bound (RFC 9449). */
  require_dpop: z.boolean().optional(),
  created_by: z.string(),
  login_issuer: z.string(),
  rate_limit_per_minute: rateLimit.optional(),
  /** The scopes its tokens may carry; absent (created before scopes): the catalog's defaults. */
  scopes: scopeListSchema.optional(),
  /** Where /authorize may send its browser back: a code-flow client too. */
  redirect_uris: redirectUrisSchema.optional(),
});

/** A credential's redirect URIs replaced, whole; an empty list: no longer a code-flow client. */
export const credentialRedirectUrisChangedSchema = z.object({
  client_id: z.string(),
  redirect_uris: z.union([redirectUrisSchema, z.array(z.string()).max(0)]),
  changed_by: z.string(),
});

/** A credential's allowed scopes replaced, whole: narrowing reaches its live tokens too. */
export const credentialScopesChangedSchema = z.object({
  client_id: z.string(),
  scopes: scopeListSchema,
  /** Those it held before and holds no longer: its tokens carrying one are refused from now. */
  removed: scopeListSchema,
  changed_by: z.string(),
});

/** A client's own rate limit set, or back to the default. */
export const credentialRateLimitChangedSchema = z.object({
  client_id: z.string(),
  rate_limit_per_minute: rateLimit,
  changed_by: z.string(),
});

/** A client's secret replaced, the old one working for `overlap_seconds` more. */
export const credentialSecretRotatedSchema = z.object({
  client_id: z.string(),
  /** HMAC-SHA-256 of the new secret, base64url. Never the secret. */
  secret_hash: z.string(),
  overlap_seconds: z.number().int().min(0),
  /** Until when the replaced secret still works. */
  previous_secret_expires_at: z.iso.datetime(),
  rotated_by: z.string(),
  /** SHA-256 (base64url) of its caller and Idempotency-Key, when it had one. */
  idempotency_key_sha256: z.string().optional(),
});

/**
 * A rotation's response (its new secret) shown again: a retry by the same user with the same
 * Idempotency-Key got what the rotation answered, so the secret left the service twice.
 */
export const credentialSecretReplayedSchema = z.object({
  client_id: z.string(),
  /** The rotation's idempotency_key_sha256: which answer was shown again. */
  idempotency_key_sha256: z.string(),
  replayed_to: z.string(),
});

/** A secretless client's keys replaced (its own key rotation): the new set, whole. */
export const credentialKeysChangedSchema = z.object({
  client_id: z.string(),
  jwks: clientJwksSchema,
  changed_by: z.string(),
});

/** A credential revoked: its tokens stop standing. */
export const credentialRevokedSchema = z.object({
  client_id: z.string(),
  reason: z.string().nullable(),
  revoked_by: z.string(),
  /** The admin said the credential was compromised: RISC `credential-compromise` besides. */
  compromised: z.literal(true).optional(),
});

/**
 * CAEP `credential-change` of a client's credential (`credential_type` one CAEP leaves to the
 * parties: `client_secret`, `client_jwks`, or `client_credential` when the whole is revoked).
 */
const clientSignal = (
  client: string,
  credentialType: string,
  changeType: 'update' | 'revoke',
): SecuritySignal => ({
  type: 'credential-change',
  subject: { client },
  fields: { credential_type: credentialType, change_type: changeType },
});

/** The credential's events: what each hides, audits, counts, and an example. */
export const CREDENTIAL_EVENTS = {
  'credential-created': declareEvent(credentialCreatedSchema, {
    redacted: ['secret_hash'],
    audit: ['name', 'description', 'created_by', 'login_issuer', 'scopes', 'redirect_uris'],
    metric: 'credentials-created',
    example: ({ clientId }) => ({
      client_id: clientId,
      name: 'example',
      description: 'an example credential',
      secret_hash: 'c2VjcmV0LWhhc2g',
      created_by: 'user-1',
      login_issuer: 'https://login.example',
    }),
  }),
  'credential-secret-rotated': declareEvent(credentialSecretRotatedSchema, {
    redacted: ['secret_hash'],
    audit: ['overlap_seconds', 'previous_secret_expires_at', 'rotated_by'],
    signal: ({ client_id }) => clientSignal(client_id, 'client_secret', 'update'),
    example: ({ clientId, later }) => ({
      client_id: clientId,
      secret_hash: 'bmV3LXNlY3JldC1oYXNo',
      overlap_seconds: 60,
      previous_secret_expires_at: later.toISOString(),
      rotated_by: 'user-1',
    }),
  }),
  'credential-secret-replayed': declareEvent(credentialSecretReplayedSchema, {
    audit: ['idempotency_key_sha256', 'replayed_to'],
    example: ({ clientId }) => ({
      client_id: clientId,
      idempotency_key_sha256: 'c2hhMjU2LW9mLXRoZS1rZXk',
      replayed_to: 'user:user-1',
    }),
  }),
  'credential-keys-changed': declareEvent(credentialKeysChangedSchema, {
    // The keys themselves are public and in the log; the trail names who changed them.
    audit: ['changed_by'],
    signal: ({ client_id }) => clientSignal(client_id, 'client_jwks', 'update'),
    example: ({ clientId }) => ({
      client_id: clientId,
      jwks: {
        keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }],
      },
      changed_by: 'user-1',
    }),
  }),
  'credential-revoked': declareEvent(credentialRevokedSchema, {
    audit: ['reason', 'revoked_by', 'compromised'],
    // The admin's reason stays in the trail: a stream may be any client's of the space.
    signal: ({ client_id, compromised }) => [
      clientSignal(client_id, 'client_credential', 'revoke'),
      ...(compromised
        ? [
            {
              type: 'credential-compromise' as const,
              subject: { client: client_id },
              fields: { credential_type: 'client_credential' },
            },
          ]
        : []),
    ],
    example: ({ clientId }) => ({ client_id: clientId, reason: 'leaked', revoked_by: 'user-1' }),
  }),
  'credential-rate-limit-changed': declareEvent(credentialRateLimitChangedSchema, {
    audit: ['rate_limit_per_minute', 'changed_by'],
    example: ({ clientId }) => ({
      client_id: clientId,
      rate_limit_per_minute: 120,
      changed_by: 'user-1',
    }),
  }),
  'credential-redirect-uris-changed': declareEvent(credentialRedirectUrisChangedSchema, {
    audit: ['redirect_uris', 'changed_by'],
    example: ({ clientId }) => ({
      client_id: clientId,
      redirect_uris: ['https://shop.example/callback'],
      changed_by: 'user-1',
    }),
  }),
  'credential-scopes-changed': declareEvent(credentialScopesChangedSchema, {
    audit: ['scopes', 'removed', 'changed_by'],
    // Only a narrowing changes what its tokens hold: a widening reaches none already issued.
    signal: ({ client_id, scopes, removed }) =>
      removed.length > 0 && scopes
        ? {
            type: 'token-claims-change',
            subject: { client: client_id },
            fields: { claims: { scope: scopes.join(' ') } },
          }
        : undefined,
    example: ({ clientId }) => ({
      client_id: clientId,
      scopes: ['catalog:read'],
      removed: ['cart:write'],
      changed_by: 'user-1',
    }),
  }),
};
