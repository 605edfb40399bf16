import { z } from 'zod';
import { InvalidRequestError } from '../errors/errors.js';

/** An ISO-8601 instant in a query string. */
export const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));

/** Opaque page cursors: base64url of the last position returned. */
export const cursor = {
  encode: (position: number): string => Buffer.from(`p:${position}`).toString('base64url'),
  decode(value: string): number {
    const match = /^p:(\d{1,18})$/.exec(Buffer.from(value, 'base64url').toString('utf8'));
    if (!match) {
      throw new InvalidRequestError('cursor is invalid', [
        { field: 'cursor', message: 'not a cursor this API returned' },
      ]);
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
