/**
 * JSON Canonicalization Scheme (RFC 8785) for the values that come out of jsonb: keys sorted by
 * UTF-16 code units, no whitespace, ECMAScript number and string serialisation (which is what
 * JSON.stringify does for primitives). Used so that a hash over an event is the same wherever it
 * is recomputed.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) {
      throw new TypeError('canonicalJson: non-finite number');
    }
    if (value === undefined) throw new TypeError('canonicalJson: undefined is not JSON');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value instanceof Date) return JSON.stringify(value.toISOString());
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
}
