import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md's mechanical claims, held to the code: the files and folders it names
 * exist, the code names it quotes are defined, its `npm run` commands are scripts, and the
 * decisions it says have given/when/then tests have them. What it says in prose is checked by
 * reading; what it names is checked here, so a rename cannot leave it stale.
 */
const DOC = readFileSync('docs/architecture.md', 'utf8');
const ROOTS = ['src', 'tools', 'test', 'packages', 'bench', 'migrations'];

/** Every file under `dir` (node_modules and build output skipped), relative to the project. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => !/(^|\/)(node_modules|dist)\//.test(file))
    .map((file) => path.join(dir, file));
}
const FILES = ROOTS.flatMap(filesUnder);
const CODE = [...FILES.filter((file) => /\.(ts|sql)$/.test(file)), 'eslint.config.js']
  .map((file) => readFileSync(file, 'utf8'))
  .join('\n');

/** Whether `pattern` (segments; `*` or `<name>` stand for any one entry) names something that exists. */
function exists(pattern: string, dir = '.'): boolean {
  const [head, ...rest] = pattern.split('/').filter((segment) => segment !== '');
  if (head === undefined) return existsSync(dir);
  // `<kind>.ts` matches `token.ts`: a placeholder stands for any name.
  const wild = new RegExp(
    `^${head
      .split(/(<[^>]+>|\*)/)
      .map((part) =>
        /^(<[^>]+>|\*)$/.test(part) ? '.+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('')}$`,
  );
  const candidates =
    /<[^>]+>|\*/.test(head) && existsSync(dir)
      ? readdirSync(dir).filter((name) => wild.test(name))
      : [head];
  return candidates.some(
    (name) => existsSync(path.join(dir, name)) && exists(rest.join('/'), path.join(dir, name)),
  );
}

/** The code spans of the document (`…`). */
const spans = [...DOC.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!);

describe('docs/architecture.md names what exists', () => {
  it('every path it names, in prose and in its diagrams', () => {
    const paths = [
      ...DOC.matchAll(
        /(?<![\w./-])((?:src|tools|test|packages|bench|deploy|scripts|migrations|monitoring)\/[\w.<>*/-]*)/g,
      ),
    ]
      .map((match) => match[1]!.replace(/[.,;:]+$/, ''))
      .filter((name) => name !== '');
    expect(paths.length).toBeGreaterThan(50);
    expect([...new Set(paths)].filter((name) => !exists(name))).toEqual([]);
  });

  it('every file it names by its name alone', () => {
    const names = spans.filter((span) => /^[\w.-]+\.(ts|js|sql)$/.test(span));
    expect(names.length).toBeGreaterThan(30);
    const missing = names.filter(
      (name) => !FILES.some((file) => path.basename(file) === name) && !existsSync(name),
    );
    expect([...new Set(missing)]).toEqual([]);
  });

  it('every code name it quotes (functions, tables, settings, registries)', () => {
    // A name with a capital or an underscore is code; plain words (`decide`, `scope`) are prose.
    const names = spans
      .map((span) => span.replace(/\(\)$/, ''))
      .filter((span) => /^[A-Za-z_]\w*$/.test(span) && /[A-Z_]/.test(span));
    expect(names.length).toBeGreaterThan(30);
    const undefinedNames = names.filter((name) => !new RegExp(`\\b${name}\\b`).test(CODE));
    expect([...new Set(undefinedNames)]).toEqual([]);
  });

  it('every `npm run` command it gives is a script of package.json', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };
    const commands = [...DOC.matchAll(/npm run ([\w:-]+)/g)].map((match) => match[1]!);
    expect(commands.length).toBeGreaterThan(3);
    expect(commands.filter((name) => !(name in scripts))).toEqual([]);
  });

  it('the files to read first are as many as it says', () => {
    const paragraph = /\*\*Read these (\w+) files first:\*\*([\s\S]*?)\n\n/.exec(DOC);
    expect(paragraph).not.toBeNull();
    const files = [...paragraph![2]!.matchAll(/`([^`]+\.ts)`/g)];
    const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
    expect(WORDS.indexOf(paragraph![1]!)).toBe(files.length);
  });

  it('test/unit/domain has a given/when/then test for every decision', () => {
    const decisions = filesUnder('src/domain')
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/export function (decide\w+)/g)].map(
          (match) => match[1]!,
        ),
      );
    expect(decisions.length).toBeGreaterThan(20);
    const tests = filesUnder('test/unit/domain')
      .filter((file) => file.endsWith('.ts'))
      .map((file) => readFileSync(file, 'utf8'))
      .join('\n');
    expect(decisions.filter((name) => !new RegExp(`\\b${name}\\(`).test(tests))).toEqual([]);
  });
});

/** Every .ts file under `dir` (relative to the project) whose text matches `pattern`. */
function filesMatching(dir: string, pattern: RegExp): string[] {
  return filesUnder(dir)
    .filter((file) => file.endsWith('.ts') && pattern.test(readFileSync(file, 'utf8')))
    .sort();
}

describe('docs/architecture.md states what the code does ("Claims the tests hold")', () => {
  const claims = DOC.slice(DOC.indexOf('## Claims the tests hold'));
  const claim = (title: string) => {
    const at = claims.indexOf(`**${title}**`);
    expect(at, title).toBeGreaterThanOrEqual(0);
    return claims.slice(at, claims.indexOf('\n- ', at + 1));
  };

  it('the store is appended to by the one handler, and by hand only where it says', () => {
    // A call of the store's append: `<store>.append(` with anything but a string (a header is one).
    const callers = filesMatching('src', /\b(?:store|events|options\.events)\.append\(\s*[^'"`\s]/);
    expect(callers.length).toBeGreaterThan(0);
    const named = [...claim('One write path.').matchAll(/`(src\/[\w/.-]+\.ts)`/g)].map((m) => m[1]);
    expect(callers).toEqual([...named].sort());
  });

  it('only the registry makes stream refs', () => {
    const makers = [
      ...filesMatching('src', /\b(?:newStream|keyedStream)\(/),
      ...filesMatching('tools', /\b(?:newStream|keyedStream)\(/),
    ];
    expect(claim('Streams say how they are written.')).toContain('`src/domain/streams.ts`');
    expect(makers).toEqual(['src/domain/streams.ts']);
  });

  it('an access token is signed from one place', () => {
    const signers = filesMatching('src', /\bsignAccessToken(?:With)?\(/).filter(
      (file) => file !== 'src/crypto/access-tokens.ts',
    );
    expect(claim('A token is signed in one place.')).toContain(`\`${signers[0]}\``);
    expect(signers).toEqual(['src/commands/token/issuance.ts']);
  });

  it('the store announces every committed append to its listeners, on each of its paths', () => {
    const store = readFileSync('packages/event-log/src/event-store.ts', 'utf8');
    expect(claim('Every append is heard')).toContain('`announce`');
    expect(store).toMatch(/for \(const listener of options\.listeners\) listener\(/);
    // The single append, the batched append and the transaction each end in it.
    expect(store.match(/announce\(|then\(announce/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('"Adding an event type" lists as many files as it says it touches', () => {
    const section = DOC.slice(DOC.indexOf('## Adding an event type'), DOC.indexOf('## Glossary'));
    const said = /touches at most (\w+) files/.exec(section)?.[1];
    const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
    expect(WORDS.indexOf(said ?? '')).toBe(section.match(/^\d+\. /gm)?.length);
  });
});
