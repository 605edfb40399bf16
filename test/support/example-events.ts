import { randomUUID } from 'node:crypto';
import type { EventData, EventType } from '../../src/domain/events.js';

/**
 * One valid example of every registered event type. Keyed on the registry, so a new event type
 * does not compile until it has an example here, and the registry test then checks that every
 * projection handles it.
 */
export function exampleEvents(clientId: string): { readonly [Type in EventType]: EventData<Type> } {
  const now = new Date();
  const later = new Date(now.getTime() + 60_000);
  return {
    'credential-created': {
      client_id: clientId,
      name: 'example',
      description: 'an example credential',
      secret_hash: 'c2VjcmV0LWhhc2g',
      created_by: 'user-1',
      login_issuer: 'https://login.example',
    },
    'private-token-issued': {
      client_id: clientId,
      audience: 'storefront.test',
      jti: randomUUID(),
      issued_at: now.toISOString(),
      expires_at: later.toISOString(),
    },
    'public-token-issued': {
      client_id: clientId,
      audience: 'storefront.test',
      jti: randomUUID(),
      parent_jti: randomUUID(),
      customer_id: 'customer-1',
      segment_id: 'segment-1',
      issued_at: now.toISOString(),
      expires_at: later.toISOString(),
    },
    'client-authentication-failed': { client_id: clientId, reason: 'secret_mismatch' },
    'credential-secret-rotated': {
      client_id: clientId,
      secret_hash: 'bmV3LXNlY3JldC1oYXNo',
      overlap_seconds: 60,
      previous_secret_expires_at: later.toISOString(),
      rotated_by: 'user-1',
    },
    'credential-revoked': { client_id: clientId, reason: 'leaked', revoked_by: 'user-1' },
    'token-revoked': {
      client_id: clientId,
      jti: randomUUID(),
      token_kind: 'private',
      expires_at: later.toISOString(),
      revoked_by: `client:${clientId}`,
    },
    'signing-key-generated': {
      kid: `kid-${clientId}`,
      alg: 'EdDSA',
      activates_at: now.toISOString(),
      reason: 'rotation',
    },
    'credential-rate-limit-changed': {
      client_id: clientId,
      rate_limit_per_minute: 120,
      changed_by: 'user-1',
    },
    'credential-scopes-changed': {
      client_id: clientId,
      scopes: ['catalog:read'],
      removed: ['cart:write'],
      changed_by: 'user-1',
    },
    'client-authentication-failures-summarized': {
      client_id: clientId,
      window_start: now.toISOString(),
      window_end: later.toISOString(),
      failed: 40,
      refused_while_locked_out: 2,
      source_ips: ['203.0.113.9'],
      source_ip_count: 1,
    },
    'credential-keys-changed': {
      client_id: clientId,
      jwks: {
        keys: [{ kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' }],
      },
      changed_by: 'user-1',
    },
    'access-refused': {
      reason: 'space_not_granted',
      subject: 'mallory',
      operation: 'listCredentials',
      requested_space: 'space-a',
    },
    'access-refusals-summarized': {
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
    },
    'events-archived': {
      partition: 'events_20261101t000000',
      starts_at: '2026-11-01T00:00:00.000Z',
      ends_at: '2026-12-01T00:00:00.000Z',
      events: 3,
      files: [
        {
          space_id: clientId,
          file: `events_20261101t000000/${clientId}.ndjson.gz`,
          sha256: 'a'.repeat(64),
          events: 3,
          first_sequence: 1,
          last_sequence: 3,
        },
      ],
      manifest_sha256: 'b'.repeat(64),
    },
    'credential-secret-replayed': {
      client_id: clientId,
      idempotency_key_sha256: 'c2hhMjU2LW9mLXRoZS1rZXk',
      replayed_to: 'user:user-1',
    },
    'audit-log-read': {
      kind: 'events',
      query: { client_id: clientId },
      rows_returned: 3,
      complete: true,
    },
    'signing-key-retired': {
      kid: `kid-${clientId}`,
      retired_at: now.toISOString(),
      reason: 'compromised',
    },
    'signing-keys-resealed': {
      kids: [`kid-${clientId}`],
      kek: '0123456789abcdef',
      reason: 'rewrapped',
    },
    'sink-created': {
      sink_id: `sink-${clientId}`,
      name: 'siem',
      target: { kind: 'webhook', url: 'https://siem.example/intake' },
    },
    'sink-changed': {
      sink_id: `sink-${clientId}`,
      name: 'siem',
      target: { kind: 'syslog', host: 'syslog.example', port: 6514, tls: true },
    },
    'sink-paused': {
      sink_id: `sink-${clientId}`,
      reason: 'failing',
      attempts: 12,
      last_error: 'HTTP 500',
    },
    'sink-resumed': { sink_id: `sink-${clientId}`, reason: 'admin' },
    'sink-deleted': { sink_id: `sink-${clientId}`, name: 'siem' },
  };
}
