import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** The window and the most rows a dashboard read of the log returns. */
interface UseWindow {
  readonly spaceId: string;
  readonly from: Date;
  readonly limit: number;
}

/** Issuances bought by one trusted issuer's rule: how many, and the last. */
export interface IssuerRuleUse {
  readonly issuer_id: string;
  readonly iss: string;
  readonly rule: string;
  readonly issuances: number;
  readonly last_used: string;
}

/** Private tokens each issuer's rule bought since `from`, busiest first, at most `limit`. */
export async function issuerRuleUse(db: Kysely<Database>, on: UseWindow): Promise<IssuerRuleUse[]> {
  const rows = await sql<{ issuer_id: string; iss: string; rule: string; n: string; last: Date }>`
    SELECT data->'assertion'->>'issuer_id' AS issuer_id, data->'assertion'->>'iss' AS iss,
           data->'assertion'->>'rule' AS rule, count(*) AS n, max(recorded_at) AS last
    FROM events
    WHERE space_id = ${on.spaceId} AND recorded_at >= ${on.from}
      AND event_type = 'private-token-issued' AND data ? 'assertion'
    GROUP BY 1, 2, 3 ORDER BY count(*) DESC, 1, 3 LIMIT ${on.limit}`.execute(db);
  return rows.rows.map((row) => ({
    issuer_id: row.issuer_id,
    iss: row.iss,
    rule: row.rule,
    issuances: Number(row.n),
    last_used: row.last.toISOString(),
  }));
}

/** A client seen acting in delegated issuances: how many, and the last. */
export interface AgentUse {
  readonly client_id: string;
  readonly name: string | null;
  readonly issuances: number;
  readonly last_used: string;
}

/** Agents named in delegated tokens' `actors` since `from`, busiest first, named if ours. */
export async function agentUse(db: Kysely<Database>, on: UseWindow): Promise<AgentUse[]> {
  const rows = await sql<{ client_id: string; name: string | null; n: string; last: Date }>`
    SELECT a.client_id, c.name, count(*) AS n, max(e.recorded_at) AS last
    FROM events e
    CROSS JOIN LATERAL jsonb_array_elements_text(e.data->'actors') WITH ORDINALITY AS a(client_id, n)
    LEFT JOIN credentials c ON c.client_id = a.client_id AND c.space_id = e.space_id
    WHERE e.space_id = ${on.spaceId} AND e.recorded_at >= ${on.from}
      AND e.event_type = 'public-token-issued' AND e.data ? 'actors'
      AND a.n < jsonb_array_length(e.data->'actors')
    GROUP BY a.client_id, c.name ORDER BY count(*) DESC, a.client_id LIMIT ${on.limit}`.execute(db);
  return rows.rows.map((row) => ({
    client_id: row.client_id,
    name: row.name,
    issuances: Number(row.n),
    last_used: row.last.toISOString(),
  }));
}
