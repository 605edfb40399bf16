import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { typeScriptFiles } from '../support/source-files.js';

// Issue 52, item 2: the event store's one append is the only way into the log. The store is the
// event-log package; nothing of src/ writes the log past it.
const SRC = path.resolve('src');
const STORE = path.resolve('packages/event-log/src');

/** Every .ts file under src/, relative to it. */
const sourceFiles = (): string[] => typeScriptFiles(SRC).map((file) => path.relative(SRC, file));

/** What writes the log, or reaches past the store's one append to do so. */
const WRITES_THE_LOG: ReadonlyArray<readonly [string, RegExp]> = [
  ['an insert into events', /insertInto\(\s*['"]events['"]\s*\)|INSERT\s+INTO\s+events\b/i],
  [
    "the store's insides",
    /from\s+'(?:#event-log\/|[./]*)(?:insert-events|append-to-stream|batched-appender)\.js'/,
  ],
  ['a transaction a store handed out', /\btx\.db\b|StoreTransaction\['db'\]/],
];

/** Every line of src/ that writes the log some other way than the store's append, named. */
function writesOutsideTheStore(files: readonly string[], read: (file: string) => string) {
  return files.flatMap((file) =>
    read(file)
      .split('\n')
      .flatMap((line, index) =>
        WRITES_THE_LOG.filter(([, pattern]) => pattern.test(line)).map(
          ([what]) => `${file}:${index + 1} ${what}: ${line.trim()}`,
        ),
      ),
  );
}

const readSource = (file: string) => readFileSync(path.join(SRC, file), 'utf8');

describe('one write path into the log', () => {
  it("no file of src/ inserts into events or reaches past the store's append", () => {
    expect(writesOutsideTheStore(sourceFiles(), readSource)).toEqual([]);
  });

  it('the store hands no raw transaction out: a transaction offers its declared writes', () => {
    const store = readFileSync(path.join(STORE, 'event-store.ts'), 'utf8');
    const handed = /export interface StoreTransaction[^{]*\{([^}]*)\}/.exec(store)?.[1];
    expect(handed).toBeDefined();
    expect(handed).not.toMatch(/Transaction<|Kysely<|\bdb\b/);
    expect(store).not.toMatch(/appendNewStream/);
  });

  it("the tables beside the log are each written in one declared place, never in a command's own SQL", () => {
    // An idempotent answer commits with its rotation through the inline writes (writeIdempotentResponse
    // is reached only from projections/inline-writes.ts); a once-used id is a replay check on the
    // issuance path, one INSERT … ON CONFLICT DO NOTHING with no event, kept out of any append's
    // transaction so issuance pays no BEGIN/COMMIT for it.
    const writers = (table: string) =>
      sourceFiles().filter((file) =>
        new RegExp(`insertInto\\(\\s*'${table}'|INSERT\\s+INTO\\s+${table}\\b`, 'i').test(
          readSource(file),
        ),
      );
    expect(writers('idempotent_responses')).toEqual(['projections/idempotent-responses.ts']);
    expect(writers('used_once_ids')).toEqual(['projections/used-once-ids.ts']);
    const keepers = sourceFiles().filter((file) =>
      /writeIdempotentResponse\(/.test(readSource(file)),
    );
    expect(keepers.sort()).toEqual([
      'projections/idempotent-responses.ts',
      'projections/inline-writes.ts',
    ]);
  });

  it('catches each way it is meant to', () => {
    const caught = (line: string) =>
      writesOutsideTheStore(['commands/x.ts'], () => line).map((hit) => hit.split(': ')[0]);
    expect(caught("await trx.insertInto('events').values(row)")).toEqual([
      'commands/x.ts:1 an insert into events',
    ]);
    expect(caught('sql`INSERT INTO events (space_id) VALUES (1)`')).toHaveLength(1);
    expect(caught("import { insertEvents } from '#event-log/insert-events.js';")).toHaveLength(1);
    expect(caught("import { written } from './append-to-stream.js';")).toHaveLength(1);
    expect(caught('await readSink(tx.db, sinkId)')).toHaveLength(1);
    expect(caught("await trx.insertInto('events_archived_index')")).toEqual([]);
  });
});
