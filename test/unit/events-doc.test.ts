import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EVENT_CATALOG } from '../../src/domain/events.js';
import { streams } from '../../src/domain/streams.js';
import { STREAM_OF, eventsDoc, fieldsOf, undocumentedEvents } from '../../tools/events-doc.js';

const DOC = fileURLToPath(new URL('../../docs/events.md', import.meta.url));

// What `npm run docs:events` leaves on disk: the generated text as prettier formats it.
async function generated(): Promise<string> {
  const options = await prettier.resolveConfig(DOC);
  return prettier.format(eventsDoc(), { ...options, filepath: DOC });
}

describe('docs/events.md', () => {
  it('is what npm run docs:events writes from the event catalog, byte for byte', async () => {
    expect(
      readFileSync(DOC, 'utf8'),
      'docs/events.md differs from the event catalog: run npm run docs:events',
    ).toBe(await generated());
  });

  it('every event type says what it records and which stream it is appended to', () => {
    expect(undocumentedEvents()).toEqual([]);
    expect(Object.keys(STREAM_OF).sort()).toEqual(Object.keys(EVENT_CATALOG).sort());
    for (const stream of Object.values(STREAM_OF)) expect(streams).toHaveProperty(stream);
  });

  it('lists each type once, with every field of its schema', () => {
    const doc = readFileSync(DOC, 'utf8');
    for (const [type, { schema }] of Object.entries(EVENT_CATALOG)) {
      expect(doc.split(`- \`${type}\`,`).length - 1, type).toBe(1);
      const shape = (schema as z.ZodObject).shape;
      for (const field of Object.keys(shape)) expect(doc, `${type}.${field}`).toContain(field);
    }
  });

  it('marks optional fields and redacted ones', () => {
    const schema = z.object({ a: z.string(), b: z.number().optional(), c: z.string() });
    expect(fieldsOf(schema, ['c'])).toBe('a, b?, c†');
    expect(fieldsOf(z.object({ kind: z.enum(['x', 'y']) }), [])).toBe("kind: 'x' | 'y'");
  });
});
