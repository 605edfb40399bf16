import { z } from 'zod';

/**
 * What docs/configuration.md's default column says of a setting beyond the schema's own default.
 * A setting's description is its `.describe()`; this holds only what a default cannot say.
 */
export interface SettingNote {
  /** Said after the default (or after "unset"): what an unset value means, when it is required. */
  readonly defaultNote?: string;
  /**
   * The default in words, for a default computed when the process starts (the machine's value
   * would make the document differ from one machine to the next).
   */
  readonly computedDefault?: string;
}

/** The notes, registered on the settings' schemas (`.register(settingNotes, {...})`). */
export const settingNotes = z.registry<SettingNote>();
