import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts the sibling module `name` of this file as a worker thread with `workerData`. Compiled
 * (the image), it is `<name>.js`, started as is. From source (tsx, vitest), it is `<name>.ts`,
 * which a worker cannot load by itself on Node 20 (a worker does not inherit the loader hooks of
 * `--import tsx`): a one-line bootstrap imports it through tsx's own API instead.
 */
export function startSiblingWorker(name: string, workerData: unknown): Worker {
  const extension = path.extname(new URL(import.meta.url).pathname);
  const url = new URL(`./${name}${extension}`, import.meta.url);
  if (extension !== '.ts') return new Worker(url, { workerData });
  // tsx's ESM API, found from its package.json (its `require` entry would load the CommonJS one).
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsxApi = new URL('dist/esm/api/index.mjs', pathToFileURL(tsxPackage)).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(url.href)}, ${JSON.stringify(url.href)}))`;
  return new Worker(bootstrap, { eval: true, workerData });
}
