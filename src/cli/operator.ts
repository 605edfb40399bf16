import { hostname, userInfo } from 'node:os';
import type { ServiceActor } from '../domain/events.js';
import type { Config } from '../config/config.js';
import type { KeyEncryptionKey } from '../crypto/key-encryption.js';
import { loadKeyEncryptionKey } from '../crypto/key-files.js';
import { openTokenSigner } from '../crypto/signer-from-config.js';
import type { TokenSigner } from '../crypto/token-signer.js';
import { createEventStore, type EventStore } from '#event-log/event-store.js';
import { createAppendNotifier } from '#event-log/notify.js';
import { postgresInlineWrites, type InlineWrites } from '../projections/inline-writes.js';
import { exitOnConfigError } from '#settings/command-line.js';
import { createLogger, openDatabase, type OpenDatabase } from './runtime.js';

/** Who runs a command-line change, as recorded in its events: the OS user on this host. */
export function operatorActor(): ServiceActor {
  return { actor: `operator:${userInfo().username}`, origin: `cli@${hostname()}`, requestId: null };
}

/** An operator command's database: background timeouts, the owner unless `role` says, warnings logged. */
export function operatorDatabase(
  config: Config,
  command: string,
  application: string,
  options: Parameters<typeof openDatabase>[4] & { readonly poolSize?: number } = {},
): Promise<OpenDatabase> {
  const logger = createLogger({ LOG_LEVEL: 'warn' }, command);
  return openDatabase(config, logger, `token-authority-${application}`, options.poolSize ?? 1, {
    timeouts: 'background',
    ...options,
  });
}

/**
 * Runs `change` on the event store as the API appends through it (its events wake the projector
 * like any other), then closes the store (a NOTIFY may be due) and the database.
 */
export async function withOperatorEvents<T>(
  config: Config,
  command: string,
  application: string,
  change: (events: EventStore<InlineWrites>, database: OpenDatabase) => Promise<T>,
): Promise<T> {
  const database = await operatorDatabase(config, command, application);
  const notifier = createAppendNotifier(database.handle.pool);
  const events = createEventStore(database.handle.db, {
    writes: postgresInlineWrites,
    listeners: [() => notifier.appended()],
  });
  const result = await change(events, database);
  await notifier.close();
  await database.close();
  return result;
}

/** `withOperatorEvents` with the token signing keys: the key-encryption key and the signer. */
export function withSigningKeys<T>(
  config: Config,
  command: string,
  application: string,
  change: (keys: {
    readonly events: EventStore<InlineWrites>;
    readonly kek: KeyEncryptionKey;
    readonly signer: TokenSigner;
  }) => Promise<T>,
): Promise<T> {
  return withOperatorEvents(config, command, application, async (events, database) => {
    const kek = await loadKeyEncryptionKey(
      config.SIGNING_KEY_ENCRYPTION_KEY,
      config.DATA_DIR,
    ).catch(exitOnConfigError);
    // SIGNING_BACKEND=pkcs11: a new key is made inside the token.
    const signer = await openTokenSigner(config, database.handle.db, kek).catch(exitOnConfigError);
    const result = await change({ events, kek, signer });
    await signer.close();
    return result;
  });
}
