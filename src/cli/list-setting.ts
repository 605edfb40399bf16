import type { z } from 'zod';
import { ConfigError } from '../config/config.js';
import { settingText } from '../config/setting-value.js';

/** A setting holding a JSON array (inline or `file:`); errors name the setting, never a value. */
export async function jsonListSetting(
  setting: string,
  value: string,
  of: string,
): Promise<unknown> {
  const text = await settingText(setting, value);
  try {
    return JSON.parse(text);
  } catch {
    throw new ConfigError([`${setting}: expected a JSON array of ${of}, or file:<path> of one`]);
  }
}

/** A list setting held to its schema, each problem naming its entry (`SETTING[0.field]`). */
export function checkedList<T>(setting: string, schema: z.ZodType<T>, raw: unknown): T {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${setting}[${issue.path.join('.')}]: ${issue.message}`),
    );
  }
  return parsed.data;
}
