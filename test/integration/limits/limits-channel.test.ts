import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS_MESSAGE } from '../../../src/limits/limits.js';
import { sealedPayload } from '#rate-limit/notify-payload.js';
import {
  LIMITS_CHANNEL,
  limitsChannelKey as channelKey,
} from '../../../src/limits/postgres-peers.js';
import {
  AUDIENCE,
  createCredentialVia,
  startTestService,
  type TestService,
} from '../../support/test-service.js';

/**
 * Issue 32 item 8: any database login can NOTIFY the limits channel (Postgres has no per-channel
 * grant). A message counts only with the MAC of the key the API replicas share and within the
 * bounds of what a replica sends.
 */
const SPACE = 'space-limits-channel';
const sharedKey = randomBytes(32);
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    SECRET_HASH_KEY: sharedKey.toString('base64url'),
    CLIENT_RATE_LIMIT_PER_MINUTE: '50',
    SPACE_RATE_LIMIT_PER_MINUTE: '1000',
  });
});

const message = (clientId: string, units: number) =>
  JSON.stringify({
    from: 'somebody',
    message: {
      kind: LIMITS_MESSAGE,
      spent: [[clientId, units]],
      spentBySpace: [],
      failedAuth: [],
      failedLogin: [],
    },
  });

async function notify(payload: string) {
  await service.database.pool.query('SELECT pg_notify($1, $2)', [LIMITS_CHANNEL, payload]);
  // Delivery is asynchronous; a tenth of a second is ample on one machine.
  await new Promise((resolve) => setTimeout(resolve, 300));
}

const tokenStatus = async (credential: { client_id: string; client_secret: string }) =>
  (
    await service.post('/v1/credential/token', {
      ...credential,
      audience: AUDIENCE,
      grant_type: 'client_credentials',
    })
  ).status;

describe('the limits channel', () => {
  it('a forged message (no MAC, another key, or out of bounds) spends nothing', async () => {
    const credential = await createCredentialVia(service, SPACE);
    const key = channelKey(sharedKey);
    await notify(message(credential.client_id, 50));
    await notify(sealedPayload(channelKey(randomBytes(32)), message(credential.client_id, 50)));
    await notify(sealedPayload(key, message(credential.client_id, 1_000_000_000)));
    expect(await tokenStatus(credential)).toBe(200);
  });

  it("a replica's message, sealed with the shared key, still spends the client's budget", async () => {
    const credential = await createCredentialVia(service, SPACE);
    await notify(sealedPayload(channelKey(sharedKey), message(credential.client_id, 50)));
    expect(await tokenStatus(credential)).toBe(429);
  });
});
