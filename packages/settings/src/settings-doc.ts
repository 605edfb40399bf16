import { z } from 'zod';
import type { SettingGroup } from './setting-groups.js';
import { settingNotes } from './setting-notes.js';

/** A setting's description as its schema carries it (undefined: none, or only blanks). */
export function settingDescription(schema: z.ZodType): string | undefined {
  const text = schema.description?.trim();
  return text ? text : undefined;
}

/** The settings of `shape` that carry no description: each must have one. */
export function undocumentedSettings(shape: Readonly<Record<string, z.ZodType>>): string[] {
  return Object.entries(shape)
    .filter(([, schema]) => settingDescription(schema) === undefined)
    .map(([name]) => name);
}

/**
 * The schema's own default of a setting as the document writes it (in backticks), or undefined
 * for a setting without one or whose default is computed at start (its note says it in words).
 */
export function documentedDefault(schema: z.ZodType): string | undefined {
  if (!(schema instanceof z.ZodDefault) || settingNotes.get(schema)?.computedDefault) {
    return undefined;
  }
  const value: unknown = schema.def.defaultValue;
  return `\`${Array.isArray(value) ? value.join(',') : String(value)}\``;
}

function defaultCell(schema: z.ZodType): string {
  const note = settingNotes.get(schema);
  if (note?.computedDefault) return note.computedDefault;
  const value = documentedDefault(schema) ?? 'unset';
  return note?.defaultNote ? `${value} (${note.defaultNote})` : value;
}

// A table cell: one line, and a `|` in the text is not a column's end.
function cell(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
}

function groupTable({ title, settings }: SettingGroup): string {
  const rows = Object.entries(settings).map(
    ([name, schema]) =>
      `| \`${name}\` | ${cell(defaultCell(schema))} | ${cell(settingDescription(schema) ?? '')} |`,
  );
  return [
    `## ${title}`,
    '',
    '| setting | default | description |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The settings document in Markdown, before prettier: `intro`, then a table per group. */
export function settingsDoc(intro: string, groups: readonly SettingGroup[]): string {
  return `${[intro, ...groups.map(groupTable)].join('\n\n')}\n`;
}
