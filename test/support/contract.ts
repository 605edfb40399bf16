import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Document = {
  paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
};

/** What a documented response must satisfy, and which operations a test has seen answer. */
export interface ContractChecker {
  /** Throws when `body` (a response of `method path`) is not what the document says. */
  check(method: string, url: string, status: number, contentType: string, body: unknown): void;
  /** "method template status" of every response checked so far. */
  readonly seen: ReadonlySet<string>;
}

const pointer = (...parts: string[]) =>
  parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** Validates real responses against the OpenAPI document's schemas (JSON Schema 2020-12). */
export function contractChecker(document: Document): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
  ajv.addSchema(document, 'openapi');
  // Literal paths first: /v1/credential/token is not /v1/credential/{client_id}.
  const templates = Object.keys(document.paths)
    .sort((a, b) => a.split('{').length - b.split('{').length)
    .map((template) => {
      // A parameter marked `x-spans-segments` (a wildcard route) takes several segments.
      const spanning = new Set(
        Object.values(document.paths[template]!).flatMap((operation) =>
          (
            (operation as { parameters?: { name: string; 'x-spans-segments'?: boolean }[] })
              .parameters ?? []
          )
            .filter((parameter) => parameter['x-spans-segments'] === true)
            .map((parameter) => parameter.name),
        ),
      );
      const pattern = template.replace(/\{([^}]+)\}/g, (_, name: string) =>
        spanning.has(name) ? '.+' : '[^/]+',
      );
      return { template, pattern: new RegExp(`^${pattern}$`) };
    });
  const seen = new Set<string>();
  return {
    seen,
    check(method, url, status, contentType, body) {
      const path = new URL(url, 'http://x').pathname;
      const match = templates.find(({ pattern }) => pattern.test(path));
      if (!match) throw new Error(`${method} ${path} is not in the OpenAPI document`);
      const operation = document.paths[match.template]![method.toLowerCase()];
      if (!operation) throw new Error(`${method} ${match.template} is not documented`);
      const response = operation.responses[String(status)] as
        { content?: Record<string, unknown> } | undefined;
      if (!response) throw new Error(`${method} ${match.template} does not document ${status}`);
      if (!response.content) {
        if (contentType !== '' || (body !== undefined && body !== null && body !== '')) {
          throw new Error(`${method} ${match.template} ${status}: a body where none is documented`);
        }
        seen.add(`${method.toLowerCase()} ${match.template} ${status}`);
        return;
      }
      const mediaType = contentType.split(';')[0]!.trim();
      if (!(mediaType in response.content)) {
        throw new Error(
          `${method} ${match.template} ${status}: ${mediaType} is not documented (${Object.keys(response.content).join(', ')})`,
        );
      }
      if (mediaType.endsWith('json')) {
        const ref = `openapi#/${pointer('paths', match.template, method.toLowerCase(), 'responses', String(status), 'content', mediaType, 'schema')}`;
        const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
        if (!validate(body)) {
          throw new Error(
            `${method} ${match.template} ${status} does not match its schema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`,
          );
        }
      }
      seen.add(`${method.toLowerCase()} ${match.template} ${status}`);
    },
  };
}
