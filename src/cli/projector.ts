/**
 * `npm run projector`: keeps the views and Merkle trees up to date with the log; of several
 * replicas one leads (advisory lock). `--rebuild=<view>` replays one view from the first event.
 */
import { PROJECTIONS, projectionNamed } from '../projections/all.js';
import { rebuildProjection } from '../projections/batches.js';
import { parseCommandLine } from '#settings/command-line.js';
import { startProjectorService } from './projector-service.js';
import { progressOnStderr } from '#audit-log/cli/progress.js';
import { createLogger, openDatabase } from './runtime.js';
import { configOrExit, usageExit } from './config-exit.js';
import { runService } from './process-lifecycle.js';
import { PROJECTOR_POOL_NAME } from '../projections/frozen-sessions.js';

const { values } = parseCommandLine(
  `Usage: npm run projector [-- --rebuild=<audit|rates|usage>]
Follows the log and keeps the views and hash chains; --rebuild empties one view and replays it.`,
  { rebuild: { type: 'string' } },
);
const config = configOrExit('worker');
const logger = createLogger(config, 'projector');
// The service's pool by its process's name (a leader ends another's frozen one); a rebuild's not.
const open = (poolSize: number, name: string, role?: 'projector') =>
  openDatabase(config, logger, name, poolSize, { timeouts: 'background', role });

if (values.rebuild === undefined) {
  await runService(
    config,
    logger,
    () => open(4, PROJECTOR_POOL_NAME, 'projector'),
    async (database) => {
      const projector = await startProjectorService(config, logger, database);
      return () => projector.stop();
    },
  );
} else {
  const projection = projectionNamed(values.rebuild);
  if (!projection) {
    usageExit(
      `unknown view "${values.rebuild}"; one of: ${PROJECTIONS.map((p) => p.name).join(', ')}`,
    );
  }
  const database = await open(2, 'token-authority-projector-rebuild');
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
}
