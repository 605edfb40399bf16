import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ADVISORY_LOCK,
  ADVISORY_LOCK_IN_SQL,
  SPACE_LOCK_PREFIX,
  spaceLockName,
  type AdvisoryLockPurpose,
  type SpaceLockPurpose,
} from '../../src/db/advisory-locks.js';
import { SPACE_ID_PATTERN } from '../../src/http/authentication.js';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { EVENT_LOG_MIGRATIONS } from '#event-log/schema.js';
import { advisoryCallsInSql } from '../support/advisory-calls.js';

/**
 * Issue 49: two purposes shared one advisory key (the deliverer's session lock and partition
 * maintenance), and issuance stopped whenever a partition was due. Every key the SQL or the code
 * takes is held here to the one registry, src/db/advisory-locks.ts.
 */
const purposeOf = new Map<number, AdvisoryLockPurpose>(
  Object.entries(ADVISORY_LOCK).map(([purpose, key]) => [key, purpose as AdvisoryLockPurpose]),
);

// In the order they apply: the service's files, then the event log's own (src/db/migrate.ts).
const migrations = [
  ...readdirSync(MIGRATIONS_DIR)
    .filter((file) => file.endsWith('.sql'))
    .sort()
    .map((file) => ({ file, text: readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8') })),
  ...EVENT_LOG_MIGRATIONS.map(({ name, sql }) => ({ file: `event-log/${name}`, text: sql })),
];

describe('the advisory-lock registry', () => {
  it('gives every purpose a key of its own', () => {
    const keys = Object.values(ADVISORY_LOCK);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('holds every key the SQL functions take now (their last definitions) to its purpose', () => {
    const calls = advisoryCallsInSql(migrations);
    // The migrations do take advisory locks: an empty list would mean the reader lost them.
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) {
      const where = `${call.file}: ${call.holder} takes ${call.argument}`;
      expect(call.key, `${where}: a literal key from the registry`).toBeDefined();
      const purpose = purposeOf.get(call.key!);
      expect(purpose, `${where}: not a key of ADVISORY_LOCK`).toBeDefined();
      expect(ADVISORY_LOCK_IN_SQL[purpose!] ?? [], `${where}: key of ${purpose}`).toContain(
        call.holder,
      );
    }
  });

  it('names only functions that take their key, each in SQL', () => {
    const calls = advisoryCallsInSql(migrations);
    for (const [purpose, holders] of Object.entries(ADVISORY_LOCK_IN_SQL)) {
      for (const holder of holders) {
        expect(
          calls.some(
            (call) =>
              call.holder === holder && call.key === ADVISORY_LOCK[purpose as AdvisoryLockPurpose],
          ),
          `${holder} takes ${purpose}`,
        ).toBe(true);
      }
    }
  });

  it('reads a superseded definition as gone and a new one as what runs', () => {
    // The reader itself: without the last-definition rule, migration 019's old key would count.
    const calls = advisoryCallsInSql([
      {
        file: '001.sql',
        text: `CREATE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_advisory_xact_lock(1); END; $$;`,
      },
      {
        file: '002.sql',
        text: `CREATE OR REPLACE FUNCTION f() RETURNS void LANGUAGE plpgsql AS $body$ BEGIN
          IF NOT pg_try_advisory_xact_lock(2) THEN RETURN; END IF; END; $body$;
          DO $$ BEGIN PERFORM pg_advisory_lock(3); END $$;`,
      },
    ]);
    expect(calls.map(({ holder, key }) => ({ holder, key }))).toEqual([
      { holder: 'f', key: 2 },
      { holder: '002.sql', key: 3 },
    ]);
  });

  it('leaves no key as a number in the code (the tools too): each comes from ADVISORY_LOCK', () => {
    const files = ['src', 'tools']
      .flatMap((root) =>
        readdirSync(root, { recursive: true, encoding: 'utf8' }).map((file) =>
          path.join(root, file),
        ),
      )
      .filter(
        (file) => file.endsWith('.ts') && file !== path.join('src', 'db', 'advisory-locks.ts'),
      );
    const literal = /pg_(?:try_)?advisory(?:_xact)?_(?:un)?lock(?:_shared)?\(\s*\d/;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(literal.test(text), `${file} takes an advisory key as a number`).toBe(false);
      for (const key of Object.values(ADVISORY_LOCK)) {
        const spelled = [String(key), key.toLocaleString('en').replaceAll(',', '_')];
        for (const spelling of spelled)
          expect(text.includes(spelling), `${file} repeats the key ${spelling}`).toBe(false);
      }
    }
  });

  it("keys each space's lock by a prefix of its own, apart from every stream lock", () => {
    const prefixes = Object.values(SPACE_LOCK_PREFIX);
    expect(new Set(prefixes).size).toBe(prefixes.length);
    for (const purpose of Object.keys(SPACE_LOCK_PREFIX) as SpaceLockPurpose[]) {
      const name = spaceLockName(purpose, 'space-a');
      // A stream lock hashes `<space id>/<stream>`: no name here may read as one.
      expect(SPACE_ID_PATTERN.test(name.slice(0, name.indexOf('/'))), name).toBe(false);
      expect(name.endsWith('/space-a')).toBe(true);
    }
  });

  it("leaves no hashed lock name built outside the registry (stream locks are the event log's)", () => {
    const allowed = [path.join('src', 'db', 'advisory-locks.ts')];
    const hashed = /pg_(?:try_)?advisory(?:_xact)?_(?:un)?lock(?:_shared)?\(\s*hashtext/;
    for (const file of readdirSync('src', { recursive: true, encoding: 'utf8' })) {
      const where = path.join('src', file);
      if (!where.endsWith('.ts') || allowed.includes(where)) continue;
      expect(hashed.test(readFileSync(where, 'utf8')), `${where} builds a lock name`).toBe(false);
    }
  });
});
