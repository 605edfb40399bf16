import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sealLog } from '../../../src/audit-trail/seal/sealer.js';
import { keyEncryptionKey } from '../../../src/crypto/key-encryption.js';
import { startDeliverer, type RunningDeliverer } from '../../../src/delivery/deliverer.js';
import { delivererEvents } from '../../../src/commands/sink/deliverer-events.js';
import { newWebhookSecret } from '../../../packages/outbound/src/standard-webhooks.js';
import { sealSinkSecret, writeSink } from '../../../src/delivery/sinks.js';
import { startWebhookReceiver } from '../../../packages/outbound/test/webhook-receiver.js';
import { TEST_DELIVERER_TIMINGS } from '../../support/delivery/deliverer-timings.js';
import { startLocalIssuer, type LocalIssuer } from '../../support/local-issuer.js';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

/**
 * Issue 54, evidence: a jwt-bearer issuance's `assertion` (issuer, the assertion's sub and jti,
 * the rule) leaves the database as the audit API shows it: in the space's export and in what its
 * webhook sink is delivered.
 */
const SPACE = 'space-issuer-evidence';
const OURS = 'http://token-authority.test';
const kek = keyEncryptionKey(randomBytes(32));
let service: TestService;
let spiffe: LocalIssuer;
let deliverer: RunningDeliverer | undefined;
afterAll(() => deliverer?.stop());

/** The first `assertion` member anywhere in `value` (an export line or a CloudEvent). */
function assertionIn(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const record = value as Record<string, unknown>;
  if (typeof record.assertion === 'object') return record.assertion as Record<string, unknown>;
  for (const member of Object.values(record)) {
    const found = assertionIn(member);
    if (found) return found;
  }
  return undefined;
}

beforeAll(async () => {
  service = await startTestService();
  spiffe = await startLocalIssuer({ alg: 'ES256' });
  const client = (await createCredentialVia(service, SPACE, 'payments')).client_id;
  const trusted = await fetch(`${service.baseUrl}/v1/trusted-issuers`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await service.loginToken([SPACE])}`,
      'x-service-space-id': SPACE,
      'content-type': 'application/json',
    },
    body: JSON.stringify({
      iss: spiffe.iss,
      jwks_uri: spiffe.jwksUri,
      audience: OURS,
      rules: [
        { id: 'payments-svid', claims: { sub: 'spiffe://shop.example/*' }, client_id: client },
      ],
    }),
  });
  expect(trusted.status).toBe(201);
}, 60_000);

describe("a jwt-bearer issuance's evidence outside the database", () => {
  it('is in the audit export and in the sink delivery, never the assertion itself', async () => {
    const secret = newWebhookSecret();
    const receiver = await startWebhookReceiver(secret);
    await writeSink(service.database.db, {
      sinkId: 'snk_issuers',
      spaceId: SPACE,
      name: 'siem',
      target: { kind: 'webhook', url: receiver.url },
      sealedSecret: sealSinkSecret(kek, 'snk_issuers', secret),
    });
    const assertion = await spiffe.mint({
      aud: [OURS],
      sub: 'spiffe://shop.example/ns/shop/sa/payments',
    });
    const answer = await service.post(
      '/v1/credential/token',
      { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion, audience: AUDIENCE },
      { 'x-service-space-id': SPACE },
    );
    expect(answer.status).toBe(200);
    const evidence = {
      iss: spiffe.iss,
      sub: 'spiffe://shop.example/ns/shop/sa/payments',
      jti: decodeJwt(assertion).jti,
      rule: 'payments-svid',
    };
    const signature = assertion.split('.')[2]!;

    while ((await sealLog(service.database.db, 500)) > 0);
    const range = `from=${new Date(Date.now() - 3_600_000).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
    const exported = await (
      await fetch(`${service.baseUrl}/v1/audit/export?${range}&through=now`, {
        headers: {
          authorization: `Bearer ${await service.loginToken([SPACE])}`,
          'x-service-space-id': SPACE,
        },
      })
    ).text();
    const lines = exported
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as unknown);
    expect(lines.map(assertionIn)).toContainEqual(expect.objectContaining(evidence));
    expect(exported).not.toContain(signature);

    deliverer = startDeliverer({
      db: service.database.db,
      events: delivererEvents(service.database.db),
      url: service.database.url,
      kek,
      issuer: OURS,
      rules: { production: false, allowHttpHosts: [], ownPorts: [] },
      operatorSinks: [],
      ...TEST_DELIVERER_TIMINGS,
      logger: pino({ level: 'silent' }),
    });
    const delivered = await waitUntil(
      receiver.events,
      (events) => events.some((event) => assertionIn(event)?.jti === evidence.jti),
      { timeoutMs: 20_000 },
    );
    const issued = delivered.find((event) => assertionIn(event)?.jti === evidence.jti)!;
    expect(issued.type).toBe('com.token-authority.private-token-issued');
    expect(assertionIn(issued)).toMatchObject(evidence);
    expect(JSON.stringify(delivered)).not.toContain(signature);
    await receiver.close();
  }, 60_000);
});
