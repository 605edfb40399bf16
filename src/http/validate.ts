import type { z } from 'zod';
import { InvalidRequestError } from '../errors/errors.js';

/** Parses `value` with `schema`, or throws an InvalidRequestError naming every offending field. */
export function validate<Schema extends z.ZodType>(
  schema: Schema,
  value: unknown,
  where: 'body' | 'query' | 'header',
): z.infer<Schema> {
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
