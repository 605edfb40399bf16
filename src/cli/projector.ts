/**
 * `npm run projector`: follows the event log and keeps the audit and rate views and the hash chain
 * up to date. Several replicas may run; one leads (advisory lock), the others stand by.
 * `npm run projector -- --rebuild=<audit|rates|usage>` empties a view, replays it from the first event,
 * and exits.
 */
import { PROJECTIONS, projectionNamed } from '../projections/all.js';
import { rebuildProjection } from '../projections/batches.js';
import { parseCommandLine } from '#audit-log/cli/command-line.js';
import { startProjectorService } from './projector-service.js';
import { progressOnStderr } from '#audit-log/cli/progress.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit, exitOnConfigError } from './config-exit.js';
import { followParent, onShutdownSignal } from './process-lifecycle.js';

const { values } = parseCommandLine(
  `Usage: npm run projector [-- --rebuild=<audit|rates|usage>]
Follows the log and keeps the views and hash chains; --rebuild empties one view and replays it.`,
  { rebuild: { type: 'string' } },
);
const config = configOrExit('worker');
const logger = createLogger(config, 'projector');

if (values.rebuild !== undefined) {
  const projection = projectionNamed(values.rebuild);
  if (!projection) {
    console.error(
      `unknown view "${values.rebuild}"; one of: ${PROJECTIONS.map((p) => p.name).join(', ')}`,
    );
    process.exit(2);
  }
  const database = await openDatabase(config, logger, 'token-authority-projector', 2, {
    timeouts: 'background',
  });
  const { events } = await database.handle.db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('events'))
    .executeTakeFirstOrThrow();
  const progress = progressOnStderr(`rebuild ${projection.name}`, {
    total: Number(events),
    unit: 'events',
  });
  const replayed = await rebuildProjection(
    database.handle.db,
    projection,
    config.PROJECTOR_BATCH_SIZE,
    (soFar) => progress.update(soFar),
  );
  progress.finish(replayed);
  logger.info({ view: projection.name, replayed }, 'view rebuilt from the first event');
  await database.close();
} else {
  const database = await openDatabase(config, logger, 'token-authority-projector', 4, {
    timeouts: 'background',
    role: 'projector',
  }).catch(exitOnConfigError);
  const projector = await startProjectorService(config, logger, database).catch(exitOnConfigError);
  const stop = onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => {
    await projector.stop();
    await database.close();
  });
  followParent(stop);
}
