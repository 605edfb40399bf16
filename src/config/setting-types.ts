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

/** A Postgres connection string. */
export const postgresUrl = z
  .string()
  .regex(/^postgres(ql)?:\/\//, 'expected a postgres:// or postgresql:// URL');
