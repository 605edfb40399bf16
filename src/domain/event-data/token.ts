import { z } from 'zod';
import { declareEvent, type ExampleInputs } from './declaration.js';
import { authorizationDetailsSchema } from '#verifier/actor-claim.js';

/** Scopes as RFC 6749 §3.3 text, sorted. */
const scopeText = z.string().max(4096).optional();
/** Which token, for whom. */
const token = { client_id: z.string(), audience: z.string(), jti: z.string() };
const lifetime = {
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  /** The key a DPoP-bound token is bound to (RFC 7638 thumbprint); absent for a bearer token. */
  cnf_jkt: z.string().optional(),
  /** The scopes granted; absent when none were. */
  scope: scopeText,
  /** Its entry in its space's Token Status List (issue 65): the list's id and the index in it. */
  status: z
    .object({ list: z.string().regex(/^[A-Za-z0-9_-]{22}$/), idx: z.number().int().min(0) })
    .optional(),
};

/**
 * What a jwt-bearer grant (RFC 7523 §2.1) was given in place of a secret: the trusted issuer and
 * the rule that matched, the assertion's `iss`, `sub` and `jti`; never the assertion itself.
 */
export const assertionEvidenceSchema = z.object({
  issuer_id: z.string(),
  iss: z.string(),
  sub: z.string(),
  jti: z.string(),
  rule: z.string(),
});

export type AssertionEvidence = z.infer<typeof assertionEvidenceSchema>;

/** A private token issued to a client. */
export const privateTokenIssuedSchema = z.object({
  ...token,
  ...lifetime,
  assertion: assertionEvidenceSchema.optional(),
  /** The client ID metadata document (its URL, the client id) whose key signed the assertion. */
  metadata_document: z.string().max(512).optional(),
});

/** A public token issued for a customer, bought with a private token or delegated. */
export const publicTokenIssuedSchema = z.object({
  ...token,
  parent_jti: z.string(),
  customer_id: z.string(),
  segment_id: z.string(),
  ...lifetime,
  /** The agent (client id) the customer allowed to exchange it (RFC 8693 §4.4 `may_act`). */
  may_act: z.string().optional(),
  /** Scopes the catalog grants only through delegation, kept for that agent (`may_act.scope`). */
  may_act_scope: scopeText,
  /** RFC 9396: what the customer allowed the agent (a spending cap), as the token carries it. */
  authorization_details: authorizationDetailsSchema.optional(),
  /** Delegated: the subject token's authorization_details this one does not carry. */
  narrowed_details: z
    .array(z.looseObject({ type: z.string() }))
    .max(8)
    .optional(),
  /** Delegated to an agent by a trusted issuer's assertion: its evidence, as a private token's. */
  assertion: assertionEvidenceSchema.optional(),
  /** Delegated: the public token exchanged for it; `parent_jti` is that one's. */
  subject_jti: z.string().optional(),
  /** Delegated from a delegated token: that one's subjects (`subject_jtis` after the first). */
  earlier_subject_jtis: z.array(z.string()).max(8).optional(),
  /** Delegated: the `act` chain's client ids, the acting agent first. */
  actors: z.array(z.string()).max(8).optional(),
  /** Delegated: the subject token's scopes this one does not carry. */
  narrowed: scopeText,
});

/** A token revoked by its client (RFC 7009). */
export const tokenRevokedSchema = z.object({
  client_id: z.string(),
  jti: z.string(),
  token_kind: z.enum(['private', 'public']),
  expires_at: z.iso.datetime(),
  revoked_by: z.string(),
});

/**
 * A version of a space's Token Status List published (issue 65, item 4): the signed
 * `statuslist+jwt` itself, so what was served at any time is in the log, with an inclusion proof,
 * and a historical request (`?time=`) is answered by the version valid then. A new version is
 * published only when the list changed, its key changed, or the last one nears its end.
 */
export const statusListPublishedSchema = z.object({
  list_id: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
  ring: z.enum(['own', 'shared']),
  kid: z.string().max(200),
  iat: z.number().int().min(0),
  exp: z.number().int().min(0),
  /** SHA-256 (hex) of the list's `lst`: two versions saying the same have the same digest. */
  lst_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** The latest `exp` of the tokens it was judged from; absent when it had none. */
  latest_exp: z.number().int().min(0).optional(),
  /** The Status List Token as served (public: the list is served to anyone). */
  jwt: z.string().max(65_536),
});

const issuedExample = ({ clientId, now, later, id }: ExampleInputs) => ({
  client_id: clientId,
  audience: 'storefront.test',
  jti: id(),
  issued_at: now.toISOString(),
  expires_at: later.toISOString(),
});

/** The token's events: each issuance is a rate, a use of its credential and a metric. */
export const TOKEN_EVENTS = {
  'private-token-issued': declareEvent(privateTokenIssuedSchema, {
    audit: ['scope', 'assertion', 'metadata_document'],
    rate: { counter: 'private_tokens' },
    isUse: true,
    metric: 'private-tokens-issued',
    example: issuedExample,
  }),
  'public-token-issued': declareEvent(publicTokenIssuedSchema, {
    // Delegation's evidence: who acts, for whose token, and what was narrowed.
    audit: [
      'scope',
      'may_act',
      'may_act_scope',
      'subject_jti',
      'actors',
      'narrowed',
      'authorization_details',
      'narrowed_details',
      'assertion',
    ],
    rate: { counter: 'public_tokens' },
    isUse: true,
    metric: 'public-tokens-issued',
    example: (given) => ({
      ...issuedExample(given),
      parent_jti: given.id(),
      customer_id: 'customer-1',
      segment_id: 'segment-1',
    }),
  }),
  'token-revoked': declareEvent(tokenRevokedSchema, {
    audit: ['token_kind', 'revoked_by'],
    signal: ({ jti }) => ({ type: 'session-revoked', subject: { token: jti } }),
    example: ({ clientId, later, id }) => ({
      client_id: clientId,
      jti: id(),
      token_kind: 'private',
      expires_at: later.toISOString(),
      revoked_by: `client:${clientId}`,
    }),
  }),
  'status-list-published': declareEvent(statusListPublishedSchema, {
    audit: ['list_id', 'ring', 'kid', 'iat', 'exp', 'lst_sha256', 'latest_exp'],
    metric: null,
    example: ({ now }) => ({
      list_id: 'AAAAAAAAAAAAAAAAAAAAAA',
      ring: 'shared',
      kid: 'key-1',
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(now.getTime() / 1000) + 120,
      lst_sha256: 'a'.repeat(64),
      jwt: 'eyJhbGciOiJFZERTQSJ9.e30.c2lnbmF0dXJl',
    }),
  }),
};
