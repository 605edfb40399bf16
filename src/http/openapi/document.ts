import type { ScopeCatalog } from '../../domain/scope-catalog.js';
import { z } from 'zod';
import type { ErrorCode } from '../../errors/errors.js';
import { statusOf } from '../error-response.js';
import type { Caller, Operation } from './operation.js';
import { oauthError, problem } from './responses.js';

type JsonObject = Record<string, unknown>;

/** Koa's `/a/:b` (or a wildcard `/a/*b`) as OpenAPI's `/a/{b}`. */
export function openApiPath(koaPath: string): string {
  return koaPath.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonObject => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
  }) as JsonObject;
  return rest;
};

const SECURITY: Readonly<Record<Caller, JsonObject[]>> = {
  public: [],
  login: [{ loginToken: [], space: [] }],
  client: [{ clientBasic: [] }, {}],
  'private-token': [{ privateToken: [] }],
};

const ALWAYS: readonly ErrorCode[] = ['unavailable', 'internal'];

const MEDIA = { json: 'application/json', form: 'application/x-www-form-urlencoded' } as const;

function parameters(operation: Operation): JsonObject[] {
  const list: JsonObject[] = [];
  const add = (where: 'path' | 'query' | 'header', object: z.ZodObject | undefined) => {
    if (!object) return;
    const schema = jsonSchema(object, 'input') as {
      properties?: Record<string, JsonObject>;
      required?: string[];
    };
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property as JsonObject & { description?: string };
      // A wildcard (`/a/*b`) takes several segments, which OpenAPI's templates cannot say.
      const spans = where === 'path' && operation.path.includes(`*${name}`);
      list.push({
        name,
        in: where,
        required: where === 'path' || (schema.required ?? []).includes(name),
        ...(description ? { description } : {}),
        ...(spans ? { 'x-spans-segments': true } : {}),
        schema: rest,
      });
    }
  };
  add('path', operation.params);
  add('query', operation.query);
  add('header', operation.headers);
  if (operation.spaceHeader && operation.caller !== 'login') {
    list.push({ $ref: '#/components/parameters/space' });
  }
  return list;
}

function errorResponses(operation: Operation): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  const declared = new Set(operation.responses.map((response) => response.status));
  for (const code of [...operation.errors, ...ALWAYS]) {
    const status = statusOf(code, operation.dialect);
    // A probe's 503 is its own documented body, not an error of ours.
    if (declared.has(status)) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const oauth = operation.dialect === 'oauth';
  const ref = oauth ? '#/components/schemas/OAuthError' : '#/components/schemas/Problem';
  const mediaType = oauth ? 'application/json' : 'application/problem+json';
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, codes]) => [
        String(status),
        {
          description: `Error codes: ${codes.join(', ')}.`,
          ...(status === 503 || status === 429
            ? { headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } }
            : {}),
          content: { [mediaType]: { schema: { $ref: ref } } },
        },
      ]),
  );
}

function operationObject(operation: Operation): JsonObject {
  const body = operation.body;
  return {
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    security: SECURITY[operation.caller],
    parameters: parameters(operation),
    ...(body
      ? {
          requestBody: {
            required: !body.optional,
            content: Object.fromEntries(
              body.media.map((media) => [
                MEDIA[media],
                { schema: jsonSchema(body.schema, 'input') },
              ]),
            ),
          },
        }
      : {}),
    responses: {
      ...Object.fromEntries(
        operation.responses.map((response) => [
          String(response.status),
          {
            description: response.description,
            // 204 No Content has none to describe, nor a redirect (its Location is the answer).
            ...(response.status === 204 || (response.status >= 300 && response.status < 400)
              ? {}
              : {
                  content: {
                    [response.mediaType ?? 'application/json']: {
                      schema: response.schema ? jsonSchema(response.schema, 'output') : {},
                    },
                  },
                }),
          },
        ]),
      ),
      ...errorResponses(operation),
    },
  };
}

/**
 * The OpenAPI 3.1 document of `operations`, served at GET /openapi.json. Schemas are zod's JSON
 * Schema (draft 2020-12, the dialect OpenAPI 3.1 uses) of the very schemas the routes validate with.
 */
export function openApiDocument(
  operations: readonly Operation[],
  options: {
    readonly issuer: string;
    readonly version: string;
    /** The scope catalog, documented as the client_credentials flow's scopes. */
    readonly scopes?: ScopeCatalog;
  },
): JsonObject {
  const base = options.issuer.replace(/\/+$/, '');
  // Each scope once, described with its audience and whether a public token may carry it.
  const scopes = Object.fromEntries(
    Object.entries(options.scopes ?? {}).flatMap(([audience, catalog]) =>
      Object.entries(catalog).map(([name, scope]) => [
        name,
        `${scope.description} (audience ${audience}; ${scope.public ? 'public tokens too' : 'private tokens only'}${scope.default ? '; a default' : ''})`,
      ]),
    ),
  );
  const paths: Record<string, JsonObject> = {};
  for (const operation of operations) {
    const path = openApiPath(operation.path);
    paths[path] = { ...paths[path], [operation.method]: operationObject(operation) };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'token-authority',
      version: options.version,
      description:
        'Issues access tokens for the Storefront GraphQL API: client credentials for a space, private tokens for servers, public tokens for browsers and apps. Every credential and token is recorded as an immutable event.',
    },
    servers: [{ url: base }],
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        loginToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description:
            "A dashboard user's login token; it must grant the X-Service-Space-ID space.",
        },
        space: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Service-Space-ID',
          description: 'The space the request is about.',
        },
        clientBasic: {
          type: 'http',
          scheme: 'basic',
          description:
            'client_id and client_secret (RFC 6749 §2.3.1); they may instead be sent in the body (client_secret_post).',
        },
        privateToken: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A private access token from POST /v1/credential/token.',
        },
        // What the Storefront API's tokens may carry: SCOPE_CATALOG, as the catalog says it.
        storefrontScopes: {
          type: 'oauth2',
          description:
            'The scope catalog (SCOPE_CATALOG): what a token asks for with `scope` at the token endpoint, POST /v1/issue and token exchange.',
          flows: { clientCredentials: { tokenUrl: `${base}/v1/credential/token`, scopes } },
        },
      },
      parameters: {
        space: {
          name: 'X-Service-Space-ID',
          in: 'header',
          required: true,
          schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' },
        },
      },
      headers: {
        RetryAfter: {
          description: 'Seconds to wait before retrying.',
          schema: { type: 'integer', minimum: 0 },
        },
      },
      schemas: {
        Problem: jsonSchema(problem, 'output'),
        OAuthError: jsonSchema(oauthError, 'output'),
      },
    },
  };
}
