import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GRANTS, GRANT_TYPES, grantNamed } from '../../src/commands/token/grants/registry.js';
import { tokenKindOfGrant } from '../../src/commands/token/grants/grant.js';
import { TOKEN_ISSUANCES } from '../../src/domain/token/issuances.js';

/** The newest migration that (re)defines the audit_log view: what the database has now. */
function newestAuditView(): string {
  const dir = new URL('../../migrations/', import.meta.url);
  const defining = readdirSync(dir)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => readFileSync(new URL(file, dir), 'utf8'))
    .filter((sql) => /CREATE (OR REPLACE )?VIEW audit_log/.test(sql));
  const sql = defining.at(-1)!;
  return sql.slice(sql.search(/CREATE (OR REPLACE )?VIEW audit_log/));
}

const squeezed = (sql: string) => sql.replace(/\s+/g, ' ');
const quoted = (value: string) => `'${value}'`;

describe('the grant registry', () => {
  it('one grant per grant_type, each issuing one of the issuance events', () => {
    expect(new Set(GRANT_TYPES).size).toBe(GRANTS.length);
    for (const grant of GRANTS) {
      expect(Object.keys(TOKEN_ISSUANCES)).toContain(grant.issues);
      expect(grantNamed(grant.grantType)).toBe(grant);
    }
    expect(tokenKindOfGrant(grantNamed('client_credentials')!)).toBe('private');
    expect(tokenKindOfGrant(grantNamed('urn:ietf:params:oauth:grant-type:token-exchange')!)).toBe(
      'public',
    );
  });

  it("rendered as the audit view's SQL, the issuance list is what the newest migration says", () => {
    const issuances = Object.entries(TOKEN_ISSUANCES);
    const tokenKind = `CASE e.event_type ${issuances
      .map(([type, kind]) => `WHEN ${quoted(type)} THEN ${quoted(kind)}`)
      .join(' ')} END AS token_kind`;
    const jtiFallback = `CASE WHEN e.event_type IN (${issuances
      .map(([type]) => quoted(type))
      .join(', ')}) THEN substr(e.stream_id, 7) END`;
    const view = squeezed(newestAuditView());
    // A new grant with a new issuance event fails here until a migration renders it.
    expect(view).toContain(tokenKind);
    expect(view).toContain(jtiFallback);
  });
});
