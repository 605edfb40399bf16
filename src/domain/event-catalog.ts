import type { EventDeclaration } from './event-data/declaration.js';

/** Event types by name, each with its declaration: a group of them, or a whole catalog. */
export type EventGroup = Readonly<Record<string, EventDeclaration>>;

type Intersection<Union> = (Union extends unknown ? (part: Union) => void : never) extends (
  whole: infer Whole,
) => void
  ? Whole
  : never;

/** The groups' declarations as one record, each name keeping its declaration's exact type. */
export type CatalogOf<Groups extends readonly EventGroup[]> = {
  readonly [Type in keyof Intersection<Groups[number]>]: Intersection<Groups[number]>[Type];
};

/** One catalog: `listedFirst` in its order, then the groups'; duplicates refused. */
export function eventCatalog<const Groups extends readonly EventGroup[]>(
  groups: Groups,
  listedFirst: readonly string[] = [],
): CatalogOf<Groups> {
  const declared = new Map<string, EventDeclaration>();
  for (const group of groups) {
    for (const [type, declaration] of Object.entries(group)) {
      if (declared.has(type)) throw new Error(`event type ${type} is declared twice`);
      declared.set(type, declaration);
    }
  }
  const unknown = listedFirst.filter((type) => !declared.has(type));
  if (unknown.length > 0) throw new Error(`listed but not declared: ${unknown.join(', ')}`);
  const order = [...new Set([...listedFirst, ...declared.keys()])];
  return Object.freeze(
    Object.fromEntries(order.map((type) => [type, declared.get(type)!])),
  ) as CatalogOf<Groups>;
}

/** Each event type's data schema. */
export function schemasOf<Catalog extends EventGroup>(
  catalog: Catalog,
): { readonly [Type in keyof Catalog]: Catalog[Type]['schema'] } {
  return Object.freeze(
    Object.fromEntries(Object.entries(catalog).map(([type, { schema }]) => [type, schema])),
  ) as { readonly [Type in keyof Catalog]: Catalog[Type]['schema'] };
}

/** The event types whose declaration `holds`, in catalog order. */
export function typesWhere<Catalog extends EventGroup>(
  catalog: Catalog,
  holds: (declaration: EventDeclaration) => boolean,
): (keyof Catalog & string)[] {
  return Object.keys(catalog).filter((type) => holds(catalog[type]!));
}
