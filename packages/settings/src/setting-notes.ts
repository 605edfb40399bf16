import { z } from 'zod';

/** What a settings document's default column says beyond the schema's own default. */
export interface SettingNote {
  /** Said after the default (or after "unset"): what an unset value means, when it is required. */
  readonly defaultNote?: string;
  /** The default in words, for one computed at start (the machine's value would vary the doc). */
  readonly computedDefault?: string;
}

/** The notes, registered on the settings' schemas (`.register(settingNotes, {...})`). */
export const settingNotes = z.registry<SettingNote>();

/** `schema` with `defaultNote` said after its default in the document. */
export function noted<T extends z.ZodType>(schema: T, defaultNote: string): T {
  settingNotes.add(schema as z.ZodType, { defaultNote });
  return schema;
}
