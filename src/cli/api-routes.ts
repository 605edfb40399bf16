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
import { authorizeRoutes } from '../http/routes/authorize.js';
import { authorizationAppRoutes } from '../http/routes/authorization-app.js';
import { jwksRoutes } from '../http/routes/jwks.js';
import { discoveryRoutes } from '../http/routes/discovery.js';
import { spaceKeyRoutes } from '../http/routes/space-keys.js';
import { auditRoutes } from '../http/routes/audit.js';
import { auditProofRoutes } from '../http/routes/audit-proofs.js';
import { auditTileRoutes } from '../http/routes/audit-tiles.js';
import { receiptRoutes } from '../http/routes/receipts.js';
import { logPolicy } from '../audit-trail/prove/receipts.js';
import { parseWitnesses, witnessQuorum } from '../audit-trail/seal/witnessing.js';
import { monitoringRoutes } from '../http/routes/monitoring.js';
import { tokenRoutes } from '../http/routes/token.js';
import { tokenLifecycleRoutes } from '../http/routes/token-lifecycle.js';
import { revocationRoutes } from '../http/routes/revocations.js';
import { statusListRoutes } from '../http/routes/status-lists.js';
import { sinkRoutes } from '../http/routes/sinks.js';
import { signalPollRoutes } from '../http/routes/signal-poll.js';
import { ssfStreamRoutes } from '../http/routes/ssf-streams.js';
import { federationMonitoringRoutes } from '../http/routes/federation-monitoring.js';
import { trustedIssuerRoutes } from '../http/routes/trusted-issuers.js';
import { sinkAdminContext, sinkTargetRules } from './sink-admin-context.js';
import { ourAudiences } from './trusted-issuer-ports.js';
import { revokedClientListedSeconds } from './rotation-settings.js';

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
  const { commands, db, reads, auditKey } = deps;
  const witnesses = parseWitnesses(config.AUDIT_WITNESSES);
  const quorum = witnessQuorum(config.AUDIT_WITNESS_QUORUM, witnesses.length);
  const receiptHeads = {
    intervalSeconds: config.AUDIT_CHECKPOINT_INTERVAL_SECONDS,
    quorum,
    witnesses: witnesses.map(({ key }) => key.name),
  };
  const { clock, limits, scopeCatalog } = commands;
  const operator = commands.trustedIssuers?.operator ?? [];
  const forget = commands.trustedIssuers?.forget;
  return [
    ...deps.auditStream,
    ...auditRoutes(commands, db, reads, auditKey, logger),
    ...auditProofRoutes(commands, db, auditKey, config, receiptHeads),
    ...auditTileRoutes(commands, db, {
      ...config,
      policy: logPolicy(auditKey, config.TOKEN_ISSUER, witnesses, quorum),
    }),
    ...receiptRoutes(commands, db, receiptHeads),
    ...monitoringRoutes(reads, clock, limits),
    ...federationMonitoringRoutes(reads, clock, operator),
    ...deps.health,
    ...jwksRoutes(commands.keys),
    ...discoveryRoutes(config.TOKEN_ISSUER, scopeCatalog),
    ...spaceKeyRoutes(commands, config.TOKEN_ISSUER, scopeCatalog),
    ...credentialRoutes(commands, db),
    ...tokenRoutes(commands, { origin: config.TOKEN_ISSUER, limits }),
    ...issueRoutes(commands),
    ...authorizeRoutes(commands, config.TOKEN_ISSUER),
    ...authorizationAppRoutes(commands),
    ...tokenLifecycleRoutes(commands),
    ...revocationRoutes(db, revokedClientListedSeconds(config)),
    ...statusListRoutes(commands, db, logger),
    ...sinkRoutes(sinkAdminContext(config, commands), db),
    ...signalPollRoutes(commands, db),
    ...ssfStreamRoutes(commands, sinkAdminContext(config, commands), db),
    ...trustedIssuerRoutes(
      {
        ...commands,
        ours: ourAudiences(config),
        rules: sinkTargetRules(config),
        lifetimeCeiling: config.JWT_BEARER_MAX_LIFETIME_CEILING_SECONDS,
        maxIssuers: config.TRUSTED_ISSUER_MAX_PER_SPACE,
        maxDomains: config.METADATA_DOMAIN_MAX_PER_SPACE,
        operator,
        ...(forget && { forget }),
      },
      db,
    ),
    ...dashboardRoutes(),
  ];
}
