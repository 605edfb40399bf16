import { readFileSync } from 'node:fs';
import type { ScopeCatalog } from '../../domain/scope-catalog.js';
import { openApiDocument } from '../openapi/document.js';
import type { Operation } from '../openapi/operation.js';
import { route, type Route } from '../route.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

/**
 * GET /openapi.json: the contract of every route served (`operations`, and this one), built once
 * from their declarations.
 */
export function openApiRoutes(
  operations: readonly Operation[],
  issuer: string,
  scopes: ScopeCatalog = {},
): readonly Route[] {
  const self = {
    method: 'get',
    path: '/openapi.json',
    operationId: 'openapi',
    tag: 'Discovery',
    summary: 'This document (OpenAPI 3.1)',
    caller: 'public',
    responses: [{ status: 200, description: 'OpenAPI 3.1 document' }],
    errors: [],
    dialect: 'problem',
  } as const satisfies Operation;
  const document = JSON.stringify(
    openApiDocument([...operations, self], { issuer, version: VERSION, scopes }),
  );
  return [
    route(self.method, self.path, 'public', {
      ...self,
      handle(ctx) {
        ctx.set('Cache-Control', 'public, max-age=300');
        ctx.type = 'application/json';
        ctx.body = document;
      },
    }),
  ];
}
