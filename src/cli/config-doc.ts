/**
 * `npm run docs:config`: writes docs/configuration.md from the config schema; the npm script then
 * runs prettier on it, as test/unit/config-doc.test.ts does on the text it compares.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../config/config.js';
import { configurationDoc } from '../config/config-doc.js';

const target = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
await writeFile(target, configurationDoc());
console.log(`wrote ${target}: ${Object.keys(configSchema.shape).length} settings`);
