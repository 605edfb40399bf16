import pino from 'pino';
import { expect } from 'vitest';
import { delivererEvents } from '../../src/commands/sink/deliverer-events.js';
import { loadKeyEncryptionKey } from '../../src/crypto/key-files.js';
import { openTokenSigner } from '../../src/crypto/signer-from-config.js';
import { openSpaceKeyStore } from '../../src/crypto/space-keys.js';
import { signalSigner } from '../../src/crypto/signal-signing.js';
import { startDeliverer, type RunningDeliverer } from '../../src/delivery/deliverer.js';
import { afterFile } from './after-file.js';
import { adminCall, type TestService } from './test-service.js';

/**
 * The deliverer as `npm run deliver` runs it, beside a test service, quick to retry and reload,
 * signing signal streams with the spaces' own rings; `spaces` get keys of their own first.
 */
export async function startSignalDeliverer(
  service: TestService,
  spaces: readonly string[],
): Promise<RunningDeliverer> {
  const { config } = service;
  const db = service.database.db;
  const kek = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR);
  const signer = await openTokenSigner(config, db, kek);
  const spaceKeys = await openSpaceKeyStore(db, {
    kek,
    signer,
    mode: config.SPACE_SIGNING_KEYS,
    refreshMs: 1000,
    maxSpaces: 10,
  });
  const deliverer = startDeliverer({
    db,
    events: delivererEvents(db),
    url: service.database.url,
    kek,
    issuer: config.TOKEN_ISSUER,
    rules: { production: false, allowHttpHosts: [], ownPorts: [] },
    operatorSinks: [],
    batchSize: 50,
    maxAttempts: 100,
    timeoutMs: 2000,
    backoff: { baseMs: 20, maxMs: 100 },
    probeMs: 100,
    pollMs: 200,
    // Signal streams send at once whatever this says: the audit sinks' gathering is not theirs.
    lingerMs: 2000,
    reloadMs: 100,
    leaseMs: 5000,
    standbyRetryMs: 200,
    logger: pino({ level: process.env.DELIVERY_LOG ?? 'silent' }),
    signals: signalSigner(spaceKeys, config.TOKEN_ISSUER),
  });
  afterFile(async () => {
    await deliverer.stop();
    spaceKeys.close();
    await signer.close();
  });
  for (const space of spaces) {
    expect((await adminCall(service, space, 'POST', '/v1/space/signing-keys')).status).toBe(200);
  }
  return deliverer;
}
