import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every .ts file under `dir`, as full paths; installed and built folders are not sources. */
export function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return ['node_modules', 'dist'].includes(entry.name) ? [] : typeScriptFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The modules a source names: `from '…'`, `import '…'` and `import('…')`. */
export const moduleSpecifiers = (text: string): string[] =>
  [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'([^']+)'/g)].map(
    (match) => match[1]!,
  );
