import type { z } from 'zod';
import { InvalidRequestError } from '../errors/errors.js';
import { findUnstorable } from './storable.js';

/** Where a validated value came from, named in error messages. */
export type InputPlace = 'body' | 'query' | 'header' | 'path';

/**
 * Parses `value` with `schema`, or throws an InvalidRequestError naming every offending field.
 * Every input from the edge passes here, so here is where text Postgres cannot store is refused.
 */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: InputPlace,
): z.infer<Schema> {
  const unstorable = findUnstorable(value);
  if (unstorable) {
    const field = unstorable.path || `(${where})`;
    throw new InvalidRequestError(`${where} is invalid: ${field} ${unstorable.problem}`, [
      { field, message: unstorable.problem },
    ]);
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.join('.') : `(${where})`,
    // zod says "expected string, received undefined" for a field that is simply absent.
    message: / received undefined$/.test(issue.message) ? 'is required' : issue.message,
  }));
  throw new InvalidRequestError(
    `${where} is invalid: ${fields.map((f) => `${f.field}: ${f.message}`).join('; ')}`,
    fields,
  );
}
