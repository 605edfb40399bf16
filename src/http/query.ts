import { z } from 'zod';
import { InvalidRequestError } from '../errors/errors.js';

/** An ISO-8601 instant in a query string. */
export const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** A 400 for a cursor this API did not return. */
const notACursor = () =>
  new InvalidRequestError('cursor is invalid', [
    { field: 'cursor', message: 'not a cursor this API returned' },
  ]);

/** Opaque page cursors: base64url of the last position returned. */
export const cursor = {
  encode: (position: number): string => Buffer.from(`p:${position}`).toString('base64url'),
  decode(value: string): number {
    const match = /^p:(\d{1,18})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
    if (!match) {
      throw notACursor();
    }
    return Number(match[1]);
  },
};

/** A window such as 15m, 6h or 7d, in milliseconds. */
export const window = z
  .string()
  .regex(/^\d{1,4}[mhd]$/, 'expected a number followed by m, h or d, e.g. 60m')
  .transform(
    (value) =>
      Number(value.slice(0, -1)) *
      { m: 60_000, h: 3_600_000, d: 86_400_000 }[value.at(-1) as 'm' | 'h' | 'd'],
  );

/**
 * Opaque cursors for pages ordered by something other than log position: base64url of a JSON
 * value that `schema` must accept, or a 400 naming the cursor.
 */
export function jsonCursor<Schema extends z.ZodType>(schema: Schema) {
  return {
    encode: (value: z.infer<Schema>): string =>
      Buffer.from(JSON.stringify(value)).toString('base64url'),
    decode(value: string): z.infer<Schema> {
      let parsed: unknown;
      try {
        parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
      } catch {
        parsed = undefined;
      }
      const result = schema.safeParse(parsed);
      if (!result.success) {
        throw notACursor();
      }
      return result.data;
    },
  };
}
