/**
 * `npm run docs:config`: writes docs/configuration.md from the config schema's own descriptions
 * and defaults (src/config/config-doc.ts). The npm script runs prettier on the file after it, as
 * test/unit/config-doc.test.ts does on the text it compares.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../config/config.js';
import { configurationDoc } from '../config/config-doc.js';

const target = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));
await writeFile(target, configurationDoc());
console.log(`wrote ${target}: ${Object.keys(configSchema.shape).length} settings`);
