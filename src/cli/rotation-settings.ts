import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { CommandContext } from '../commands/context.js';
import { startScheduledRotation } from '../commands/signing-key/scheduled-rotation.js';
import { msOf } from '../domain/times.js';

/** How long the longest-lived token lives: a replaced signing key stays published that long. */
export function longestTokenSeconds(config: Config): number {
  return Math.max(config.PRIVATE_TOKEN_TTL_SECONDS, config.PUBLIC_TOKEN_TTL_SECONDS);
}

/** A replica caching a credential as active may mint as it for CREDENTIAL_CACHE_TTL_MS after. */
export const revokedClientListedSeconds = (config: Config) =>
  longestTokenSeconds(config) + Math.ceil(config.CREDENTIAL_CACHE_TTL_MS / 1000);

/**
 * The scheduled rotation of an API process, per kind of ring: SIGNING_KEY_ROTATION_SECONDS (the
 * shared ring) and SPACE_SIGNING_KEY_ROTATION_SECONDS (each space's own). Every process looks
 * every SIGNING_KEY_ROTATION_CHECK_SECONDS; the decision on the ring's state rotates a ring once.
 * Returns what stops it.
 */
export function startRotationOf(
  config: Config,
  commands: CommandContext,
  logger: Logger,
): () => void {
  if (!commands.spaceKeys) return () => undefined;
  const policy = (lifetime: number | undefined) =>
    lifetime === undefined
      ? undefined
      : {
          publishAheadSeconds: config.SIGNING_KEY_PUBLISH_AHEAD_SECONDS,
          retireAfterSeconds: longestTokenSeconds(config),
          signingLifetimeSeconds: lifetime,
        };
  const shared = policy(config.SIGNING_KEY_ROTATION_SECONDS);
  const spaces = policy(config.SPACE_SIGNING_KEY_ROTATION_SECONDS);
  return startScheduledRotation(
    commands.events,
    commands.spaceKeys.maker,
    { ...(shared ? { shared } : {}), ...(spaces ? { spaces } : {}) },
    {
      checkMs: msOf(config.SIGNING_KEY_ROTATION_CHECK_SECONDS),
      failed: (error) => logger.warn({ err: error }, 'scheduled signing-key rotation failed'),
    },
  );
}
