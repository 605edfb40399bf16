import { readFileSync } from 'node:fs';
import Router from '@koa/router';
import { openApiDocument } from '../openapi/document.js';
import type { Operation } from '../openapi/operation.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/** The OpenAPI description of {@link openApiRoutes}. */
export const openApiOperations: readonly Operation[] = [
  {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    tag: 'Discovery',
    summary: 'This document (OpenAPI 3.1)',
    caller: 'public',
    responses: [{ status: 200, description: 'OpenAPI 3.1 document' }],
    errors: [],
    dialect: 'problem',
  },
];

/** GET /openapi.json: the contract of every route served, built once from their declarations. */
export function openApiRoutes(operations: readonly Operation[], issuer: string): Router {
  const document = JSON.stringify(
    openApiDocument([...operations, ...openApiOperations], { issuer, version: VERSION }),
  );
  const router = new Router();
  router.get('/openapi.json', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.type = 'application/json';
    ctx.body = document;
  });
  return router;
}
