import type { CommandContext } from '../commands/context.js';
import type { Config } from '../config/config.js';
import type { SinkAdminContext } from '../commands/sink/admin.js';

/**
 * The sink target rules (the outbound package's target-rules.ts) this deployment's settings make:
 * the API applies them to a space admin's sink (and a trusted issuer's jwks_uri), `npm run
 * deliver` to the operator's AUDIT_SINKS.
 */
export function sinkTargetRules(config: Config): SinkAdminContext['rules'] {
  return {
    production: config.NODE_ENV === 'production',
    allowHttpHosts: config.ALLOW_HTTP_HOSTS ?? [],
    allowTargets: config.SINK_ALLOW_TARGETS ?? [],
    ownPorts: [config.PORT, config.METRICS_PORT].filter((port) => port > 0),
  };
}

/** What the sink routes' commands use, from the API's command context. */
export function sinkAdminContext(config: Config, commands: CommandContext): SinkAdminContext {
  const { events, kek, ids, hasher, spaceKeys } = commands;
  return {
    events,
    kek,
    ids,
    hasher,
    signsOwn: async (spaceId) => (await spaceKeys?.store.hasKeys(spaceId)) === true,
    rules: sinkTargetRules(config),
    maxSinksPerSpace: config.SINK_MAX_PER_SPACE,
  };
}
