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
