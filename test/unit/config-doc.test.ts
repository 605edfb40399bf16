import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { SETTING_GROUPS, configSchema } from '../../src/config/config.js';
import {
  configurationDoc,
  documentedDefault,
  undocumentedSettings,
} from '../../src/config/config-doc.js';

const DOC = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
const settingNames = Object.keys(configSchema.shape).sort();

// What `npm run docs:config` leaves on disk: the generated text as prettier formats it.
async function generated(): Promise<string> {
  const options = await prettier.resolveConfig(DOC);
  return prettier.format(configurationDoc(), { ...options, filepath: DOC });
}

// The doc's rows, | `VARIABLE` | default | description |: the default cell by setting.
function documentedDefaults(doc: string): Map<string, string> {
  return new Map(
    [...doc.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| (.*?) \| /gm)].map((row) => [row[1]!, row[2]!]),
  );
}

describe('docs/configuration.md', () => {
  it('is what npm run docs:config writes from the config schema, byte for byte', async () => {
    expect(
      readFileSync(DOC, 'utf8'),
      'docs/configuration.md differs from the config schema: run npm run docs:config',
    ).toBe(await generated());
  });

  it('every setting of the schema carries a description of its own', () => {
    expect(
      undocumentedSettings(configSchema.shape),
      'give each of these a .describe() (as the last call, on the schema in the shape)',
    ).toEqual([]);
  });

  it('counts a setting without a description, or with a blank one, as undocumented', () => {
    const shape = {
      DESCRIBED: z.string().optional().describe('Said.'),
      BARE: z.string().optional(),
      BLANK: z.string().optional().describe('  '),
      // A default wraps the described schema: the description is not the setting's.
      DESCRIBED_INSIDE: z.string().describe('Lost.').default('x'),
    };
    expect(undocumentedSettings(shape)).toEqual(['BARE', 'BLANK', 'DESCRIBED_INSIDE']);
  });

  it('lists every setting once, in one group, and only settings of the schema', () => {
    const grouped = SETTING_GROUPS.flatMap((group) => Object.keys(group.settings));
    expect(grouped.sort()).toEqual(settingNames);
    expect(new Set(SETTING_GROUPS.map((group) => group.title)).size).toBe(SETTING_GROUPS.length);
  });

  it("shows each setting's default as the schema holds it, and unset for one without", () => {
    const shown = documentedDefaults(readFileSync(DOC, 'utf8'));
    expect([...shown.keys()].sort()).toEqual(settingNames);
    const shape: Readonly<Record<string, z.ZodType>> = configSchema.shape;
    for (const [name, schema] of Object.entries(shape)) {
      const value = documentedDefault(schema);
      if (value !== undefined)
        expect(shown.get(name), name).toMatch(new RegExp(`^${escape(value)}( \\(|$)`));
      else if (schema.safeParse(undefined).data === undefined) {
        expect(shown.get(name), name).toMatch(/^unset( \(|$)/);
      }
    }
    // Spot checks that the doc's default is the parsed value, not text typed beside it.
    expect(shown.get('PORT')).toBe(`\`${configSchema.parse({}).PORT}\``);
    expect(shown.get('SIGNING_KEY_REFRESH_MS')).toBe('`1000`');
    expect(shown.get('TOKEN_AUDIENCES')).toBe('`storefront.api.local`');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
