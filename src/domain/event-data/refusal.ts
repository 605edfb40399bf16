import { z } from 'zod';
import { declareEvent, fieldsOf } from './declaration.js';

const count = z.number().int().min(0);
/** A summary's minute. */
const window = { window_start: z.iso.datetime(), window_end: z.iso.datetime() };
/** Source IPs seen (the first 50), and how many there were in all. */
const sourceIps = { source_ips: z.array(z.string()).max(50), source_ip_count: count };

/** Failed authentications of one client in one minute past the per-minute event budget: counted. */
export const clientAuthenticationFailuresSummarizedSchema = z.object({
  client_id: z.string(),
  ...window,
  /** Attempts whose secret was checked and wrong, beyond the recorded ones. */
  failed: count,
  /** Attempts refused unchecked because their (client, IP) was over the failed-auth budget. */
  refused_while_locked_out: count,
  ...sourceIps,
});

/** A client authentication refused. */
export const clientAuthenticationFailedSchema = z.object({
  client_id: z.string(),
  /** Why; the secret that was tried is never recorded. */
  reason: z.enum(['secret_mismatch', 'credential_revoked', 'assertion_invalid']),
  /** A trusted issuer's assertion: the claim at fault (`aud`, `exp`, `jti`, …). */
  claim: z.string().max(200).optional(),
});

/** Why a login-token request was refused. */
export const accessRefusalReason = z.enum([
  /** The token did not verify (signature, issuer, audience, expiry, shape). */
  'invalid_login_token',
  /** A valid token for other spaces than X-Service-Space-ID. */
  'space_not_granted',
  /** A valid token whose role may not make this change (an auditor's). */
  'role_forbidden',
]);

/** A login-token request refused (401/403): who, what, for which space; never the token. */
export const accessRefusedSchema = z.object({
  reason: accessRefusalReason,
  /** The token's subject when its signature held; null for a token that did not verify. */
  subject: z.string().nullable(),
  /** The refused operation (its OpenAPI operationId). */
  operation: z.string(),
  /** The X-Service-Space-ID asked for, when one was sent and well-formed. */
  requested_space: z.string().nullable(),
});

/** Refusals of one reason and subject in one minute past the per-minute event budget: counted. */
export const accessRefusalsSummarizedSchema = z.object({
  reason: accessRefusalReason,
  subject: z.string().nullable(),
  ...window,
  /** Refusals beyond the recorded ones. */
  refused: count,
  /** Bad login tokens refused unchecked because their source IP was over its budget (429). */
  refused_while_locked_out: count,
  /** Spaces asked for (the first 50), and how many there were in all. */
  requested_spaces: z.array(z.string()).max(50),
  requested_space_count: count,
  ...sourceIps,
});

/** What an authorization request is refused with (RFC 6749 §4.1.2.1, RFC 8707 §2, RFC 9396 §5). */
export const authorizationRefusalError = z.enum([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'server_error',
  'temporarily_unavailable',
  'unsupported_response_type',
  'invalid_scope',
  'invalid_target',
  'invalid_authorization_details',
]);

/** An authorization request refused at /authorize or on the browser's way back; never a secret. */
export const authorizationRequestRefusedSchema = z.object({
  /** The client_id as sent (the client's own words, unchecked), or null when none was. */
  client_id: z.string().max(512).nullable(),
  error: authorizationRefusalError,
  description: z.string().max(500),
  /** Whether the client heard it at its redirect_uri; else the browser was shown it. */
  redirected: z.boolean(),
  /** On the way back: the request the browser came back for. */
  request_id: z.string().max(64).optional(),
});

/** Refusals of one space and error in one minute past the per-minute event budget: counted. */
export const authorizationRefusalsSummarizedSchema = z.object({
  /** The error; `rate_limited`: requests refused (429) before any check. */
  reason: z.union([authorizationRefusalError, z.literal('rate_limited')]),
  ...window,
  /** Refusals beyond the recorded ones. */
  refused: count,
  /** client_ids sent (the first 50), and how many there were in all. */
  client_ids: z.array(z.string().max(512)).max(50),
  client_id_count: count,
  ...sourceIps,
});

/**
 * Refused client authentications and login tokens, one by one and summarized past the budget, so
 * no attacker can grow the immutable log without bound.
 */
export const REFUSAL_EVENTS = {
  'client-authentication-failed': declareEvent(clientAuthenticationFailedSchema, {
    audit: ['reason', 'claim'],
    rate: { counter: 'rejected_authentications' },
    metric: 'rejected-authentications',
    example: ({ clientId }) => ({ client_id: clientId, reason: 'secret_mismatch' }),
  }),
  // No rate: a login-token refusal names a user, and the rate views are per client.
  'access-refused': declareEvent(accessRefusedSchema, {
    audit: fieldsOf(accessRefusedSchema),
    example: () => ({
      reason: 'space_not_granted',
      subject: 'mallory',
      operation: 'listCredentials',
      requested_space: 'space-a',
    }),
  }),
  'access-refusals-summarized': declareEvent(accessRefusalsSummarizedSchema, {
    audit: fieldsOf(accessRefusalsSummarizedSchema),
    // The refusals it counts are refusals all the same; one summary adds nothing to a rate.
    metric: null,
    example: ({ now, later }) => ({
      reason: 'invalid_login_token',
      subject: null,
      window_start: now.toISOString(),
      window_end: later.toISOString(),
      refused: 12,
      refused_while_locked_out: 3,
      requested_spaces: ['space-a'],
      requested_space_count: 1,
      source_ips: ['203.0.113.9'],
      source_ip_count: 1,
    }),
  }),
  'authorization-request-refused': declareEvent(authorizationRequestRefusedSchema, {
    audit: fieldsOf(authorizationRequestRefusedSchema),
    example: () => ({
      client_id: 'https://agent.example/client.json',
      error: 'invalid_request',
      description: 'code_challenge_method must be S256',
      redirected: true,
    }),
  }),
  'authorization-refusals-summarized': declareEvent(authorizationRefusalsSummarizedSchema, {
    audit: fieldsOf(authorizationRefusalsSummarizedSchema),
    metric: null,
    example: ({ now, later }) => ({
      reason: 'invalid_request',
      window_start: now.toISOString(),
      window_end: later.toISOString(),
      refused: 30,
      client_ids: ['https://agent.example/client.json'],
      client_id_count: 1,
      source_ips: ['203.0.113.9'],
      source_ip_count: 1,
    }),
  }),
  'client-authentication-failures-summarized': declareEvent(
    clientAuthenticationFailuresSummarizedSchema,
    {
      audit: fieldsOf(clientAuthenticationFailuresSummarizedSchema, 'client_id'),
      rate: {
        counter: 'rejected_authentications',
        countFields: ['failed', 'refused_while_locked_out'],
      },
      // Counted when suppressed (see Limits), so the summary adds nothing here.
      metric: null,
      example: ({ clientId, now, later }) => ({
        client_id: clientId,
        window_start: now.toISOString(),
        window_end: later.toISOString(),
        failed: 40,
        refused_while_locked_out: 2,
        source_ips: ['203.0.113.9'],
        source_ip_count: 1,
      }),
    },
  ),
};
