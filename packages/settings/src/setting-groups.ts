import { z } from 'zod';

/** Settings under one title of the document. */
export interface SettingGroup {
  readonly title: string;
  readonly settings: Shape;
}

type Shape = Readonly<Record<string, z.ZodType>>;

// The settings of every group in one shape (the union of the groups' shapes as an intersection).
type Merged<U> = (U extends unknown ? (shape: U) => void : never) extends (shape: infer I) => void
  ? I extends Shape
    ? I
    : never
  : never;

/**
 * Groups of settings by title, in the document's order, and the one schema of them all: every
 * setting is in exactly one group, so the document leaves none out.
 */
export function settingGroups<const G extends Record<string, Shape>>(byTitle: G) {
  const groups: readonly SettingGroup[] = Object.entries(byTitle).map(([title, settings]) => ({
    title,
    settings,
  }));
  const schema = z.object(Object.assign({}, ...Object.values(byTitle)) as Shape);
  return { groups, schema: schema as unknown as z.ZodObject<Merged<G[keyof G]>> };
}
