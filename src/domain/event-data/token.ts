import { z } from 'zod';

/** The key a DPoP-bound token is bound to (RFC 7638 thumbprint); absent for a bearer token. */
const boundTo = { cnf_jkt: z.string().optional() };
/** The scopes granted (RFC 6749 §3.3 text, sorted); absent when none were. */
const granted = { scope: z.string().max(4096).optional() };

export const privateTokenIssuedSchema = z.object({
  client_id: z.string(),
  audience: z.string(),
  jti: z.string(),
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  ...boundTo,
  ...granted,
});

export const publicTokenIssuedSchema = z.object({
  client_id: z.string(),
  audience: z.string(),
  jti: z.string(),
  parent_jti: z.string(),
  customer_id: z.string(),
  segment_id: z.string(),
  issued_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
  ...boundTo,
  ...granted,
});

export const tokenRevokedSchema = z.object({
  client_id: z.string(),
  jti: z.string(),
  token_kind: z.enum(['private', 'public']),
  expires_at: z.iso.datetime(),
  revoked_by: z.string(),
});
