import { z } from 'zod';
import { authorizationDetailsSchema } from '#verifier/actor-claim.js';
import { scopeListSchema } from './credential.js';
import { declareEvent } from './declaration.js';
import { httpUrl } from './sink.js';

const requestId = z.string().min(1).max(64);
/** Seconds since the epoch. */
const seconds = z.number().int().nonnegative();
const digest = z.string().max(100);

export const authorizationAppSetSchema = z.object({
  /** The storefront's page the browser is sent to with `?authorization_request=<id>`. */
  interaction_url: httpUrl('an http(s) URL'),
});

/** An authorization request as the client asked it, in its own words (checked, not trusted). */
export const authorizationRequestedSchema = z.object({
  request_id: requestId,
  client_id: z.string().max(512),
  redirect_uri: z.string().max(4096),
  code_challenge: z.string().max(128),
  scopes: scopeListSchema,
  state: z.string().max(4096).optional(),
  resource: z.string().max(4096).optional(),
  authorization_details: authorizationDetailsSchema.optional(),
  /** The digest of the cookie the browser was given: the code goes only to that browser. */
  browser: digest,
  expires_at: seconds,
});

/** What the storefront granted for the customer: never wider than asked. */
export const authorizationAcceptedSchema = z.object({
  request_id: requestId,
  customer_id: z.string().max(256),
  segment_id: z.string().max(256),
  scopes: scopeListSchema,
  authorization_details: authorizationDetailsSchema.optional(),
  /** The storefront's client, and the private token it accepted with (revoking it voids this). */
  accepted_by: z.string().max(512),
  parent_jti: z.string().max(64),
  /** The digest of the secret the consent sends the browser back with. */
  resume: digest,
  /** The consent's end: no refresh after it (absent in events before refresh tokens). */
  expires_at: seconds.optional(),
});

export const authorizationRejectedSchema = z.object({
  request_id: requestId,
  description: z.string().max(500).optional(),
});

export const authorizationCodeIssuedSchema = z.object({
  request_id: requestId,
  /** The code's secret's digest: the code itself is handed to the browser only. */
  code: digest,
  expires_at: seconds,
});

const requestOnly = z.object({ request_id: requestId });

/** A code redeemed: the refresh token it also bought, and the DPoP key that holds it. */
export const authorizationCodeRedeemedSchema = z.object({
  request_id: requestId,
  /** The refresh token's secret's digest (absent in events before refresh tokens). */
  refresh: digest.optional(),
  /** RFC 9449 §5: a public client's refresh token is bound to the key it redeemed with. */
  jkt: z.string().max(64).optional(),
});

/** A refresh token used: the next one's digest replaces it (rotation, OAuth 2.1 §4.3.1). */
export const authorizationRefreshedSchema = z.object({
  request_id: requestId,
  refresh: digest,
});
const example = { request_id: 'ar_example' };

/** The authorization endpoint (issue 64): a space's app, then each request's life. */
export const AUTHORIZATION_EVENTS = {
  'authorization-app-set': declareEvent(authorizationAppSetSchema, {
    audit: ['interaction_url'],
    example: () => ({ interaction_url: 'https://shop.example/consent' }),
  }),
  'authorization-requested': declareEvent(authorizationRequestedSchema, {
    redacted: ['browser'],
    audit: ['request_id', 'client_id', 'redirect_uri', 'scopes', 'resource', 'expires_at'],
    example: ({ clientId, later }) => ({
      ...example,
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:50000/callback',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      scopes: ['orders:read'],
      resource: 'https://mcp.shop.example/mcp',
      browser: 'hZ4m7Y0DkZCwJxvV2n0sF6oS8dN3q1eR9tLbKcXaPuI',
      expires_at: Math.floor(later.getTime() / 1000),
    }),
  }),
  'authorization-accepted': declareEvent(authorizationAcceptedSchema, {
    redacted: ['resume'],
    audit: ['request_id', 'customer_id', 'segment_id', 'scopes', 'accepted_by'],
    example: ({ clientId, id }) => ({
      ...example,
      customer_id: 'customer-1',
      segment_id: 'retail',
      scopes: ['orders:read'],
      accepted_by: clientId,
      parent_jti: id(),
      resume: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
    }),
  }),
  'authorization-rejected': declareEvent(authorizationRejectedSchema, {
    audit: ['request_id', 'description'],
    example: () => ({ ...example, description: 'the customer refused' }),
  }),
  'authorization-code-issued': declareEvent(authorizationCodeIssuedSchema, {
    redacted: ['code'],
    audit: ['request_id', 'expires_at'],
    example: ({ later }) => ({
      ...example,
      code: 'n4bQgYhMfWWaL-qgxVrQFaO_TxsrC4Is0V1sFbDwCgg',
      expires_at: Math.floor(later.getTime() / 1000),
    }),
  }),
  'authorization-code-redeemed': declareEvent(authorizationCodeRedeemedSchema, {
    redacted: ['refresh'],
    audit: ['request_id', 'jkt'],
    example: () => ({ ...example, refresh: 'q0ZbN3v5yH9rT1kLmP2sW8xC4dF6gJ7aE5uI0oY3nBQ' }),
  }),
  'authorization-refreshed': declareEvent(authorizationRefreshedSchema, {
    redacted: ['refresh'],
    audit: ['request_id'],
    example: () => ({ ...example, refresh: 'Zk1mQ8vR3tY6wE9uI2oP5aS7dF0gH4jK1lX3cV6bN8M' }),
  }),
  /** A retired refresh token presented again: the consent's tokens are revoked (OAuth 2.1 §4.3.1). */
  'authorization-refresh-reused': declareEvent(requestOnly, {
    audit: ['request_id'],
    example: () => example,
  }),
  /** A refresh whose token was not issued: the refresh token it replaced stands again. */
  'authorization-refresh-undone': declareEvent(requestOnly, {
    audit: ['request_id'],
    example: () => example,
  }),
  /** The storefront withdrew a customer's consent: every token it bought is revoked. */
  'authorization-consent-revoked': declareEvent(requestOnly, {
    audit: ['request_id'],
    example: () => example,
  }),
  /** A code presented again: what it bought is revoked (OAuth 2.1 §4.1.3). */
  'authorization-code-replayed': declareEvent(requestOnly, {
    audit: ['request_id'],
    example: () => example,
  }),
};
