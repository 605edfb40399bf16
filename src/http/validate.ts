import { z } from 'zod';
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

// C0 and C1 controls, and the bidirectional embeddings, overrides and isolates (U+202A-E,
// U+2066-9) that make text display in another order than it is stored.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_OR_BIDI = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/u;

/**
 * Text people will read (names, descriptions, reasons in the dashboard and the audit trail):
 * trimmed, not empty, at most `max` characters, and nothing that hides or reorders what is shown.
 */
export function displayText(max: number) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(max)
    .refine((text) => !CONTROL_OR_BIDI.test(text), {
      message: 'must not contain control characters or bidirectional overrides',
    });
}
