import net from 'node:net';
import { z } from 'zod';
import { noted } from './setting-notes.js';

/** A comma-separated list of at least one non-empty item, spaces around items dropped. */
export const commaList = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  )
  .pipe(z.array(z.string().min(1)).min(1, 'needs at least one comma-separated value'));

/** `true`/`1` or `false`/`0`: what environment variables spell a flag as. */
export const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/** A {@link booleanFlag}, `fallback` when unset. */
export const flag = (fallback: boolean) => booleanFlag.default(fallback);

/** A Postgres connection string. */
export const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL');

/** A whole number of at least `min` (and at most `max`, `tooLarge` saying so in words). */
export function integer(min: number, max?: number): z.ZodCoercedNumber;
/** The same, `fallback` when unset. */
export function integer(
  min: number,
  max: number | undefined,
  fallback: number,
  tooLarge?: string,
): z.ZodDefault<z.ZodCoercedNumber>;
export function integer(min: number, max?: number, fallback?: number, tooLarge?: string) {
  const atLeast = z.coerce.number().int().min(min);
  const bounded = max === undefined ? atLeast : atLeast.max(max, tooLarge);
  return fallback === undefined ? bounded : bounded.default(fallback);
}

/** Text of at least one character (an empty value counts as unset before it is read). */
export const nonEmpty = z.string().min(1);

/** {@link nonEmpty} text (of at most `max` characters), `fallback` when unset. */
export const text = (fallback: string, max?: number) =>
  (max === undefined ? nonEmpty : nonEmpty.max(max)).default(fallback);

/** One of `values`, `fallback` when unset. */
export const oneOf = <const T extends readonly [string, ...string[]]>(
  values: T,
  fallback: T[number],
) => z.enum(values).default(fallback as never);

/** `schema` or unset, `unsetNote` saying in the document what unset means. */
export function optional<T extends z.ZodType>(schema: T, unsetNote?: string): z.ZodOptional<T> {
  return unsetNote === undefined ? schema.optional() : noted(schema.optional(), unsetNote);
}

const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/**
 * A comma list of addresses and CIDR blocks (`10.20.0.0/16`), with `hostNames` also host names
 * and bracketed IPv6; never a block that means everyone (`/0`).
 */
export function addressList(message: string, hostNames = false) {
  const entry = z.string().refine(
    (item) => {
      const [address = '', prefix, extra] = item.split('/');
      if (extra !== undefined) return false;
      const family = net.isIP(hostNames ? address.replace(/^\[(.*)\]$/, '$1') : address);
      if (prefix === undefined) return family !== 0 || (hostNames && HOST_NAME.test(address));
      const bits = Number(prefix);
      return (
        family !== 0 && /^\d{1,3}$/.test(prefix) && bits >= 1 && bits <= (family === 4 ? 32 : 128)
      );
    },
    { message },
  );
  return commaList.pipe(z.array(entry));
}
