/** Where a value holds text Postgres cannot store faithfully, and why. */
export interface Unstorable {
  readonly path: string;
  readonly problem: string;
}

/**
 * Text Postgres can store as given: no NUL character (text and jsonb reject U+0000) and
 * well-formed UTF-16 (a lone surrogate would reach the database as U+FFFD, silently altered).
 */
export function storableTextProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (!text.isWellFormed()) return 'must be well-formed Unicode (no lone surrogate)';
  return undefined;
}

/**
 * The first string (key or value) anywhere in `value` that cannot be stored, with its path.
 * Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function findUnstorable(value: unknown): Unstorable | undefined {
  const stack: Array<{ readonly value: unknown; readonly path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: current, path } = stack.pop()!;
    if (typeof current === 'string') {
      const problem = storableTextProblem(current);
      if (problem) return { path, problem };
    } else if (current !== null && typeof current === 'object') {
      for (const [key, child] of Object.entries(current)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        const keyProblem = storableTextProblem(key);
        if (keyProblem) return { path: childPath, problem: `its name ${keyProblem}` };
        stack.push({ value: child, path: childPath });
      }
    }
  }
  return undefined;
}
