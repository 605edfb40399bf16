/** One `pg_advisory*` call in SQL that still runs. */
export interface AdvisoryCall {
  readonly file: string;
  /** The function whose body takes it, or the migration file for code outside any function. */
  readonly holder: string;
  /** The argument as written. */
  readonly argument: string;
  /** The key, when the argument is a number. */
  readonly key: number | undefined;
}

const CALL = /pg_(?:try_)?advisory(?:_xact)?_(?:un)?lock(?:_shared)?\s*\(([^)]*)\)/g;
const FUNCTION = /CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([\w.]+)\s*\(/gi;

/**
 * The advisory-lock calls of SQL applied in order (migrations): those in each function's last
 * definition (an earlier one no longer runs) and those outside any function.
 */
export function advisoryCallsInSql(
  files: readonly { readonly file: string; readonly text: string }[],
): AdvisoryCall[] {
  const last = new Map<string, AdvisoryCall[]>();
  const outside: AdvisoryCall[] = [];
  for (const { file, text: written } of files) {
    // Comments may quote a call; only code runs. Blanked, not cut, so positions hold.
    const text = written.replace(/--[^\n]*/g, (comment) => ' '.repeat(comment.length));
    const bodies: { name: string; start: number; end: number }[] = [];
    for (const match of text.matchAll(FUNCTION)) {
      const open = /\$(\w*)\$/.exec(text.slice(match.index));
      if (!open) continue;
      const start = match.index + open.index + open[0].length;
      const end = text.indexOf(open[0], start);
      bodies.push({
        name: match[1]!.replace(/^public\./, ''),
        start,
        end: end < 0 ? text.length : end,
      });
    }
    for (const body of bodies) last.set(body.name, []);
    for (const call of text.matchAll(CALL)) {
      const argument = call[1]!.trim();
      const key = /^\d+$/.test(argument) ? Number(argument) : undefined;
      const body = bodies.find(({ start, end }) => call.index >= start && call.index < end);
      const found = { file, holder: body?.name ?? file, argument, key };
      if (body) last.get(body.name)!.push(found);
      else outside.push(found);
    }
  }
  return [...[...last.values()].flat(), ...outside];
}
