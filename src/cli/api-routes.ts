import type { Kysely } from 'kysely';
import type { CommandContext } from '../commands/context.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { ReadRouter } from '../db/read-replica.js';
import type { Database } from '../db/schema.js';
import type { AuditKey } from '../audit-trail/audit-key.js';
import type { Route } from '../http/route.js';
import { credentialRoutes } from '../http/routes/credential.js';
import { dashboardRoutes } from '../http/routes/dashboard.js';
import { issueRoutes } from '../http/routes/issue.js';
import { jwksRoutes } from '../http/routes/jwks.js';
import { discoveryRoutes } from '../http/routes/discovery.js';
import { spaceKeyRoutes } from '../http/routes/space-keys.js';
import { auditRoutes } from '../http/routes/audit.js';
import { auditProofRoutes } from '../http/routes/audit-proofs.js';
import { monitoringRoutes } from '../http/routes/monitoring.js';
import { tokenRoutes } from '../http/routes/token.js';
import { tokenLifecycleRoutes } from '../http/routes/token-lifecycle.js';
import { revocationRoutes } from '../http/routes/revocations.js';
import { sinkRoutes } from '../http/routes/sinks.js';
import { federationMonitoringRoutes } from '../http/routes/federation-monitoring.js';
import { trustedIssuerRoutes } from '../http/routes/trusted-issuers.js';
import { sinkAdminContext, sinkTargetRules } from './sink-admin-context.js';
import { ourAudiences } from './trusted-issuer-ports.js';

/**
 * Every route the API serves but /openapi.json (built from these) and /metrics (its own
 * listener): the route factories, each given what it needs. The health and live-feed routes come
 * built, since the server keeps handles on their state.
 */
export function apiRoutes(
  config: Config,
  logger: Logger,
  deps: {
    readonly commands: CommandContext;
    readonly db: Kysely<Database>;
    readonly reads: ReadRouter;
    readonly auditKey: AuditKey;
    readonly auditStream: readonly Route[];
    readonly health: readonly Route[];
  },
): readonly Route[] {
  return [
    ...deps.auditStream,
    ...auditRoutes(deps.commands, deps.db, deps.reads, deps.auditKey, logger),
    ...auditProofRoutes(deps.commands, deps.db, deps.auditKey, config),
    ...monitoringRoutes(deps.reads, deps.commands.clock, deps.commands.limits),
    ...federationMonitoringRoutes(
      deps.reads,
      deps.commands.clock,
      deps.commands.trustedIssuers?.operator ?? [],
    ),
    ...deps.health,
    ...jwksRoutes(deps.commands.keys),
    ...discoveryRoutes(config.TOKEN_ISSUER, deps.commands.scopeCatalog),
    ...spaceKeyRoutes(deps.commands, config.TOKEN_ISSUER, deps.commands.scopeCatalog),
    ...credentialRoutes(deps.commands, deps.db),
    ...tokenRoutes(deps.commands, { origin: config.TOKEN_ISSUER, limits: deps.commands.limits }),
    ...issueRoutes(deps.commands),
    ...tokenLifecycleRoutes(deps.commands),
    ...revocationRoutes(
      deps.db,
      Math.max(config.PRIVATE_TOKEN_TTL_SECONDS, config.PUBLIC_TOKEN_TTL_SECONDS),
    ),
    ...sinkRoutes(sinkAdminContext(config, deps.commands), deps.db),
    ...trustedIssuerRoutes(
      {
        ...deps.commands,
        ours: ourAudiences(config),
        rules: sinkTargetRules(config),
        lifetimeCeiling: config.JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS,
        operator: deps.commands.trustedIssuers?.operator ?? [],
        ...(deps.commands.trustedIssuers?.forget && {
          forget: deps.commands.trustedIssuers.forget,
        }),
      },
      deps.db,
    ),
    ...dashboardRoutes(),
  ];
}
