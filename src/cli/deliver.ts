/**
 * `npm run deliver`: delivers the audit trail to every sink (a space's, and the operator's
 * AUDIT_SINKS), at least once and in log order. Several replicas may run; one delivers (advisory
 * lock), the others stand by. It follows the log after commit: issuance never waits for it.
 */
import { setPriority } from 'node:os';
import { z } from 'zod';
import { loadKeyEncryptionKey } from '../crypto/key-files.js';
import { ConfigError, type Config } from '../config/config.js';
import { settingText } from '../config/setting-value.js';
import { startDeliverer } from '../delivery/deliverer.js';
import { signalSigner } from '../crypto/signal-signing.js';
import { openSpaceKeyStore } from '../crypto/space-keys.js';
import { openTokenSigner } from '../crypto/signer-from-config.js';
import { delivererEvents } from '../commands/sink/deliverer-events.js';
import {
  operatorSinkRefusals,
  operatorSinksSchema,
  type OperatorSink,
} from '../delivery/operator-sinks.js';
import { exitOnConfigError, parseCommandLine } from '#settings/command-line.js';
import { sinkTargetRules } from './sink-admin-context.js';
import { configOrExit } from './config-exit.js';
import { runService } from './process-lifecycle.js';
import { checkedList, jsonListSetting } from './list-setting.js';
import { createLogger, openDatabase } from './runtime.js';
import { startWorkerTraces } from './traces.js';

/** AUDIT_SINKS read and checked: each `file:` resolved; errors name the setting, never a value. */
export async function operatorSinks(config: Config): Promise<OperatorSink[]> {
  if (!config.AUDIT_SINKS) return [];
  const raw = await jsonListSetting('AUDIT_SINKS', config.AUDIT_SINKS, 'sinks');
  const entries = z.array(z.record(z.string(), z.unknown())).safeParse(raw);
  if (!entries.success) throw new ConfigError(['AUDIT_SINKS: expected a JSON array of sinks']);
  const resolved = await Promise.all(
    entries.data.map(async (entry, index) => {
      const out = { ...entry };
      for (const field of ['secret', 'ca'] as const) {
        const value = entry[field];
        if (typeof value === 'string') {
          out[field] = (await settingText(`AUDIT_SINKS[${index}].${field}`, value)).trim();
        }
      }
      return out;
    }),
  );
  const sinks = checkedList('AUDIT_SINKS', operatorSinksSchema, resolved);
  const refusals = operatorSinkRefusals(sinks, sinkTargetRules(config));
  if (refusals.length > 0) throw new ConfigError(refusals);
  return sinks;
}

parseCommandLine(
  `Usage: npm run deliver
Delivers the audit trail to every sink, from each one's cursor; one replica delivers at a time.`,
  {},
);
const config = configOrExit('worker');
const logger = createLogger(config, 'deliverer');
// Sinks tolerate lag: sharing a host with the API (npm start), nice 19 lets issuance come first,
// delivery taking the leftovers and catching up after a burst. It needs no privilege.
try {
  setPriority(19);
} catch (error) {
  logger.warn({ err: error }, 'could not lower the deliverer priority');
}
const sinks = await operatorSinks(config).catch(exitOnConfigError);
const kek = await loadKeyEncryptionKey(config.SIGNING_KEY_ENCRYPTION_KEY, config.DATA_DIR).catch(
  exitOnConfigError,
);
const open = () =>
  openDatabase(config, logger, 'token-authority-deliverer', 2 + sinks.length, {
    timeouts: 'background',
    role: 'projector',
  });
await runService(config, logger, open, async (database) => {
  const traces = await startWorkerTraces(config, 'client');
  // Signal streams' SETs are signed by their space's own ring, read as the API reads it.
  const db = database.handle.db;
  // Local keys are opened by the store itself; an HSM's are signed through its signer, which
  // needs PKCS11_PIN (npm start withholds it here): without it, audit delivery goes on and
  // pushed signal streams pause, named (`secret_unavailable`).
  const signer =
    config.SIGNING_BACKEND === 'local'
      ? undefined
      : await openTokenSigner(config, db, kek).catch((error: unknown) => {
          logger.warn(
            { err: error },
            'no HSM session here: pushed signal streams cannot be signed',
          );
          return undefined;
        });
  const spaceKeys = await openSpaceKeyStore(db, {
    kek,
    ...(signer ? { signer } : {}),
    mode: config.SPACE_SIGNING_KEYS,
    refreshMs: config.SIGNING_KEY_REFRESH_MS,
    maxSpaces: config.SIGNING_KEY_CACHE_MAX_KEYS,
  });
  const deliverer = startDeliverer({
    signals: signalSigner(spaceKeys, config.TOKEN_ISSUER),
    ...(traces.spans ? { spans: traces.spans } : {}),
    db: database.handle.db,
    events: delivererEvents(database.handle.db),
    url: database.url,
    kek,
    issuer: config.TOKEN_ISSUER,
    rules: sinkTargetRules(config),
    operatorSinks: sinks,
    batchSize: config.SINK_BATCH_SIZE,
    maxAttempts: config.SINK_MAX_ATTEMPTS,
    timeoutMs: config.SINK_TIMEOUT_MS,
    backoff: { baseMs: 500, maxMs: 60_000 },
    probeMs: 30_000,
    pollMs: config.PROJECTOR_POLL_INTERVAL_MS,
    lingerMs: config.SINK_LINGER_MS,
    reloadMs: 2000,
    leaseMs: 5000,
    standbyRetryMs: 1000,
    logger,
  });
  return async () => {
    await deliverer.stop();
    spaceKeys.close();
    await signer?.close();
    await traces.export?.shutdown();
  };
});
