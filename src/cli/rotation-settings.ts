import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { CommandContext } from '../commands/context.js';
import {
  startScheduledRotation,
  type RotationSettings,
} from '../commands/signing-key/scheduled-rotation.js';
import { msOf } from '../domain/times.js';

/**
 * The scheduled rotation's policy per kind of ring, from SIGNING_KEY_ROTATION_SECONDS (the shared
 * ring), SPACE_SIGNING_KEY_ROTATION_SECONDS (each space's own) and SIGNING_KEY_PUBLISH_AHEAD_SECONDS;
 * a replaced key stays published as long as the longest token lives.
 */
export function rotationSettingsOf(config: Config): RotationSettings {
  const common = {
    publishAheadSeconds: config.SIGNING_KEY_PUBLISH_AHEAD_SECONDS,
    retireAfterSeconds: Math.max(config.PRIVATE_TOKEN_TTL_SECONDS, config.PUBLIC_TOKEN_TTL_SECONDS),
  };
  const policy = (lifetime: number | undefined) =>
    lifetime === undefined ? undefined : { ...common, signingLifetimeSeconds: lifetime };
  const shared = policy(config.SIGNING_KEY_ROTATION_SECONDS);
  const spaces = policy(config.SPACE_SIGNING_KEY_ROTATION_SECONDS);
  return { ...(shared ? { shared } : {}), ...(spaces ? { spaces } : {}) };
}

/**
 * The scheduled rotation of an API process: every process looks every
 * SIGNING_KEY_ROTATION_CHECK_SECONDS; the decision on the ring's state rotates a ring once.
 * Returns what stops it.
 */
export function startRotationOf(
  config: Config,
  commands: CommandContext,
  logger: Logger,
): () => void {
  if (!commands.spaceKeys) return () => undefined;
  return startScheduledRotation(
    commands.events,
    commands.spaceKeys.maker,
    rotationSettingsOf(config),
    {
      checkMs: msOf(config.SIGNING_KEY_ROTATION_CHECK_SECONDS),
      failed: (error) => logger.warn({ err: error }, 'scheduled signing-key rotation failed'),
    },
  );
}
