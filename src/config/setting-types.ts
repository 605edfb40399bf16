import { z } from 'zod';

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
