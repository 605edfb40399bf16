import { z } from 'zod';
import { clientJwksSchema, scopeListSchema } from './credential.js';
import { declareEvent } from './declaration.js';
import { httpUrl } from './sink.js';

/** A JWKS URL or an issuer URL: https, or http where the deployment's SSRF rules allow it. */
const issuerUrl = httpUrl('an http(s) URL');

/**
 * One claim a rule requires: its path (`/` between levels, so `kubernetes.io/namespace` reads
 * the `namespace` member of the `kubernetes.io` object) and the value it must equal, or start
 * with when the value ends in `*`.
 */
export const claimConditionSchema = z.record(
  z.string().min(1).max(200),
  z.string().min(1).max(500),
);

/** A rule: claims that must all match, the credential a match acts as, the scopes it may get. */
export const issuerRuleSchema = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . -'),
  claims: claimConditionSchema.refine((claims) => Object.keys(claims).length > 0, {
    message: 'a rule names at least one claim (sub, say)',
  }),
  client_id: z.string().min(1).max(200),
  /** At most these scopes (and never more than the credential's); absent: the credential's. */
  scopes: scopeListSchema.optional(),
});
export type IssuerRule = z.infer<typeof issuerRuleSchema>;

/** What a space's admin says of an issuer it trusts (its keys by URL or inline, never both). */
export const trustedIssuerDefinitionSchema = z
  .object({
    iss: issuerUrl,
    jwks_uri: issuerUrl.optional(),
    jwks: clientJwksSchema.optional(),
    /** The `aud` its assertions must carry: this service's issuer identifier or token endpoint. */
    audience: z.string().min(1).max(2000),
    rules: z.array(issuerRuleSchema).min(1).max(50),
    /**
     * How far past `iat` its assertions may expire, in seconds, at most
     * JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS; absent: JWT_BEARER_MAX_LIFETIME_SECONDS. A platform
     * that mints 600 s tokens (Kubernetes) is trusted without raising every issuer's bound.
     */
    max_lifetime_seconds: z.number().int().min(1).max(3600).optional(),
  })
  .refine((issuer) => (issuer.jwks_uri === undefined) !== (issuer.jwks === undefined), {
    message: 'give jwks_uri or jwks, one of them',
    path: ['jwks_uri'],
  })
  .refine((issuer) => new Set(issuer.rules.map((rule) => rule.id)).size === issuer.rules.length, {
    message: 'rule ids are unique',
    path: ['rules'],
  });
export type TrustedIssuerDefinition = z.infer<typeof trustedIssuerDefinitionSchema>;

const issuerId = { issuer_id: z.string().min(1).max(100) };
export const trustedIssuerAddedSchema = z.object({
  ...issuerId,
  issuer: trustedIssuerDefinitionSchema,
});
export const trustedIssuerChangedSchema = trustedIssuerAddedSchema;
export const trustedIssuerRemovedSchema = z.object({ ...issuerId, iss: z.string() });

const exampleIssuer = (): TrustedIssuerDefinition => ({
  iss: 'https://kubernetes.default.svc.cluster.local',
  jwks_uri: 'https://cluster.example/openid/v1/jwks',
  audience: 'http://localhost:8080',
  max_lifetime_seconds: 600,
  rules: [
    {
      id: 'checkout',
      claims: { sub: 'system:serviceaccount:shop:checkout' },
      client_id: 'client-1',
    },
  ],
});

/** A space's trusted issuers: each change an event naming who made it. */
export const TRUSTED_ISSUER_EVENTS = {
  'trusted-issuer-added': declareEvent(trustedIssuerAddedSchema, {
    audit: ['issuer_id', 'issuer'],
    example: ({ id }) => ({ issuer_id: `iss_${id()}`, issuer: exampleIssuer() }),
  }),
  'trusted-issuer-changed': declareEvent(trustedIssuerChangedSchema, {
    audit: ['issuer_id', 'issuer'],
    example: ({ id }) => ({ issuer_id: `iss_${id()}`, issuer: exampleIssuer() }),
  }),
  'trusted-issuer-removed': declareEvent(trustedIssuerRemovedSchema, {
    audit: ['issuer_id', 'iss'],
    example: ({ id }) => ({ issuer_id: `iss_${id()}`, iss: exampleIssuer().iss }),
  }),
};

/** A host name as WHATWG URL writes it (lowercase): where client ID metadata documents live. */
export const metadataClientDomainSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, 'a lowercase host name (agents.example.com)');

/** What a space's admin allows of a domain's metadata clients: the scopes they may get. */
export const metadataClientDomainAllowedSchema = z.object({
  domain: metadataClientDomainSchema,
  /** At most these scopes; absent: the catalog's defaults. */
  scopes: scopeListSchema.optional(),
  /** Token requests a minute for all its documents together; absent when allowed: 600. */
  budget_per_minute: z.number().int().min(1).max(1_000_000).optional(),
});
export const metadataClientDomainRemovedSchema = z.object({ domain: metadataClientDomainSchema });
/** A document's first use in a space: its URL (the client id) and its keys' RFC 7638 thumbprints. */
export const metadataClientFirstSeenSchema = z.object({
  client_id: z.string().max(512),
  domain: metadataClientDomainSchema,
  key_thumbprints: z.array(z.string().max(100)).max(20),
});

/** Client ID metadata documents: the domains a space allows, and each first use. */
export const METADATA_CLIENT_EVENTS = {
  'metadata-client-domain-allowed': declareEvent(metadataClientDomainAllowedSchema, {
    audit: ['domain', 'scopes', 'budget_per_minute'],
    example: () => ({ domain: 'agents.example.com', scopes: ['orders:read'] }),
  }),
  'metadata-client-domain-removed': declareEvent(metadataClientDomainRemovedSchema, {
    audit: ['domain'],
    example: () => ({ domain: 'agents.example.com' }),
  }),
  'metadata-client-first-seen': declareEvent(metadataClientFirstSeenSchema, {
    audit: ['client_id', 'domain', 'key_thumbprints'],
    example: () => ({
      client_id: 'https://agents.example.com/client.json',
      domain: 'agents.example.com',
      key_thumbprints: ['NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs'],
    }),
  }),
};
