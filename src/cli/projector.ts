/** `npm run projector`: placeholder until the projector lands (issue 4). */
import { configOrExit, createLogger, onShutdownSignal } from './runtime.js';

const config = configOrExit();
const logger = createLogger(config, 'projector');
logger.warn('projector not implemented yet');
onShutdownSignal(logger, config.SHUTDOWN_TIMEOUT_MS, async () => undefined);
setInterval(() => undefined, 1 << 30);
