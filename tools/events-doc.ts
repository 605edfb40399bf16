/**
 * `npm run docs:events`: writes docs/events.md from the event catalog (src/domain/events.ts):
 * each type's group (the file of src/domain/event-data/ declaring it), its stream as the registry
 * (src/domain/streams.ts) names it, what it records (the doc comment of its catalog entry, else of
 * its schema) and its data fields from the schema's shape. The one hand-kept part is STREAM_OF:
 * which registry entry each type is appended to. test/unit/events-doc.test.ts holds the doc current.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { z } from 'zod';
import { isNewStream } from '#event-log/stream-ref.js';
import { EVENT_CATALOG, type EventType } from '../src/domain/events.js';
import { streams } from '../src/domain/streams.js';

type StreamName = keyof typeof streams;

/** The registry entry each event type is appended to. */
export const STREAM_OF: Readonly<Record<EventType, StreamName>> = {
  'credential-created': 'credential',
  'private-token-issued': 'token',
  'public-token-issued': 'token',
  'client-authentication-failed': 'authenticationFailure',
  'access-refused': 'accessRefusal',
  'access-refusals-summarized': 'refusalSummary',
  'credential-secret-rotated': 'credential',
  'credential-secret-replayed': 'secretReplay',
  'credential-keys-changed': 'credential',
  'credential-revoked': 'credential',
  'token-revoked': 'issuedToken',
  'signing-key-generated': 'signingKeyChange',
  'signing-key-retired': 'signingKeyChange',
  'signing-keys-resealed': 'signingKeyChange',
  'credential-rate-limit-changed': 'credential',
  'credential-scopes-changed': 'credential',
  'client-authentication-failures-summarized': 'failureSummary',
  'audit-log-read': 'auditRead',
  'events-archived': 'archive',
  'credential-redirect-uris-changed': 'credential',
  'status-list-published': 'statusList',
  'authorization-request-refused': 'authorizationRefusal',
  'authorization-refusals-summarized': 'authorizationRefusalSummary',
  'space-switch-over-ended': 'switchOverEnd',
  'sink-created': 'sinkChange',
  'sink-changed': 'sinkChange',
  'sink-paused': 'sinkChange',
  'sink-resumed': 'sinkChange',
  'stream-verification-requested': 'sinkChange',
  'sink-deleted': 'sinkChange',
  'signals-delivered': 'signalsDelivered',
  'trusted-issuer-added': 'trustedIssuerChange',
  'trusted-issuer-changed': 'trustedIssuerChange',
  'trusted-issuer-removed': 'trustedIssuerChange',
  'metadata-client-domain-allowed': 'metadataDomainChange',
  'metadata-client-domain-removed': 'metadataDomainChange',
  'metadata-client-first-seen': 'metadataClient',
  'authorization-app-set': 'authorizationApp',
  'authorization-requested': 'authorizationRequest',
  'authorization-accepted': 'authorizationRequest',
  'authorization-rejected': 'authorizationRequest',
  'authorization-code-issued': 'authorizationRequest',
  'authorization-code-redeemed': 'authorizationRequest',
  'authorization-refreshed': 'authorizationRequest',
  'authorization-refresh-reused': 'authorizationRequest',
  'authorization-refresh-undone': 'authorizationRequest',
  'authorization-consent-revoked': 'authorizationRequest',
  'authorization-code-replayed': 'authorizationRequest',
};

/** What a type records, for the types whose entry and schema carry no doc comment in the code. */
export const WHAT_UNCOMMENTED: Readonly<Partial<Record<EventType, string>>> = {
  'trusted-issuer-added': "A space's admin trusts an issuer's assertions (keys, audience, rules).",
  'trusted-issuer-changed': 'A trusted issuer redefined, whole.',
  'trusted-issuer-removed': 'A trusted issuer no longer trusted.',
  'metadata-client-domain-removed': 'A domain no longer allowed for client ID metadata documents.',
  'authorization-app-set': "A space's consent page (the storefront's interaction URL) set.",
  'authorization-rejected': 'The storefront refused an authorization request.',
  'authorization-code-issued': "An authorization code made for an accepted request's browser.",
};

const DATA_DIR = fileURLToPath(new URL('../src/domain/event-data/', import.meta.url));

/** The doc comment just above `anchor` in `source`: its first sentence, cut at a colon when long. */
function commentAbove(source: string, anchor: RegExp): string | undefined {
  const at = anchor.exec(source)?.index;
  if (at === undefined) return undefined;
  const before = source.slice(0, at).trimEnd();
  if (!before.endsWith('*/')) return undefined;
  const start = before.lastIndexOf('/**');
  return before
    .slice(start + 3, -2)
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .join(' ')
    .trim()
    .replace(/(?<=\.) [A-Z][\s\S]*$/, '')
    .replace(/^(.{30,}?)[:;] [\s\S]{40,}$/, '$1.');
}

/** Each event type's group (its declaring file's name) and what it records (its doc comment). */
export function declaredTypes(): Map<
  string,
  { group: string; what: string | undefined; commented: boolean }
> {
  const found = new Map<string, { group: string; what: string | undefined; commented: boolean }>();
  for (const file of readdirSync(DATA_DIR).filter((name) => name.endsWith('.ts'))) {
    const source = readFileSync(`${DATA_DIR}${file}`, 'utf8');
    for (const match of source.matchAll(/^\s*'([a-z-]+)': declareEvent\(\s*(\w+)/gm)) {
      const [, type, schema] = match as unknown as [string, string, string];
      const entry = new RegExp(`^\\s*'${type}': declareEvent`, 'm');
      const declared = new RegExp(`^(export )?const ${schema}\\b`, 'm');
      const commented = commentAbove(source, entry) ?? commentAbove(source, declared);
      const what = commented ?? WHAT_UNCOMMENTED[type as EventType];
      found.set(type, { group: file.replace(/\.ts$/, ''), what, commented: Boolean(commented) });
    }
  }
  return found;
}

/** A schema's type, said briefly. */
export function typeOf(schema: z.ZodType): string {
  const def = (schema as unknown as { _zod: { def: Record<string, unknown> & { type: string } } })
    ._zod.def;
  const inner = (key: string) => typeOf(def[key] as z.ZodType);
  switch (def.type) {
    case 'optional':
    case 'default':
    case 'readonly':
      return inner('innerType');
    case 'nullable':
      return `${inner('innerType')} | null`;
    case 'pipe':
      return inner('in');
    case 'array':
      return `${inner('element')}[]`;
    case 'literal':
      return (def.values as unknown[]).map((value) => JSON.stringify(value)).join(' | ');
    case 'enum': {
      const values = Object.values(def.entries as Record<string, string>);
      return values.length <= 4 ? values.map((value) => `'${value}'`).join(' | ') : 'enum';
    }
    case 'union':
      return [...new Set((def.options as z.ZodType[]).map(typeOf))].join(' | ');
    default:
      return def.type;
  }
}

/** A schema's fields by name (an enum's values too), optional ones marked `?`, redacted ones †. */
export function fieldsOf(schema: z.ZodType, redacted: readonly string[]): string {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape ?? {};
  return Object.entries(shape)
    .map(([name, field]) => {
      const optional = field.safeParse(undefined).success ? '?' : '';
      const type = typeOf(field);
      // Only values worth reading: an enum's or a literal's; a plain type is in the OpenAPI document.
      const shown = /['"]/.test(type) ? `: ${type}` : '';
      return `${name}${optional}${redacted.includes(name) ? '†' : ''}${shown}`;
    })
    .join(', ');
}

/** The stream an entry of the registry makes, its parameters shown as `<name>`, and its kind. */
export function streamOf(name: StreamName): string {
  const make = streams[name] as (...args: string[]) => ReturnType<(typeof streams)[StreamName]>;
  const params = /^(?:\(([^)]*)\)|(\w+)\s*=>)/.exec(make.toString())?.slice(1).join('') ?? '';
  const args = params
    .split(',')
    .map((param) => param.split(':')[0]!.trim())
    .filter((param) => param !== '')
    .map((param) => `<${param}>`);
  const ref = make(...args);
  return `\`${ref.streamId}\` (${isNewStream(ref) ? 'new' : 'keyed'})`;
}

/** What keeps the doc from being written: types without a comment or a stream, stale streams. */
export function undocumentedEvents(): string[] {
  const declared = declaredTypes();
  return Object.keys(EVENT_CATALOG).flatMap((type) => [
    ...(declared.get(type)?.what ? [] : [`${type}: no doc comment on its entry or schema`]),
    ...(STREAM_OF[type as EventType] ? [] : [`${type}: no stream in STREAM_OF`]),
    ...(declared.get(type)?.commented && WHAT_UNCOMMENTED[type as EventType]
      ? [`${type}: commented in the code now, so drop it from WHAT_UNCOMMENTED`]
      : []),
  ]);
}

/** docs/events.md, from the catalog; throws when a type lacks a comment or a stream. */
export function eventsDoc(): string {
  const problems = undocumentedEvents();
  if (problems.length > 0) throw new Error(`tools/events-doc.ts: ${problems.join('; ')}`);
  const declared = declaredTypes();
  const groups = [...new Set(Object.keys(EVENT_CATALOG).map((type) => declared.get(type)!.group))];
  const sections = groups.map((group) => {
    const items = Object.entries(EVENT_CATALOG)
      .filter(([type]) => declared.get(type)!.group === group)
      .map(([type, declaration]) => {
        const fields = fieldsOf(declaration.schema, declaration.redacted);
        const stream = streamOf(STREAM_OF[type as EventType]);
        return `- \`${type}\`, ${stream}: ${declared.get(type)!.what}\n  ${fields || '(no data)'}`;
      });
    return `## ${group}\n\n\`src/domain/event-data/${group}.ts\`\n\n${items.join('\n')}\n`;
  });
  return [
    '# Events',
    '',
    '<!-- Generated by `npm run docs:events` from the event catalog (tools/events-doc.ts). -->',
    '',
    `The ${Object.keys(EVENT_CATALOG).length} event types of the log, by the file declaring them.`,
    'Each line: the type, its stream (new: a fresh random id, appended unchecked; keyed: checked',
    'under its lock at the expected version), what it records, then its data fields (`?`',
    'optional; † replaced by its digest wherever the event leaves the database). Every event also',
    'carries metadata: `actor`, `request_id`, `client_request_id?`, `client_ip`, `user_agent`.',
    'How to add one: [architecture.md](architecture.md).',
    '',
    ...sections,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const target = fileURLToPath(new URL('../docs/events.md', import.meta.url));
  writeFileSync(target, eventsDoc());
  process.stdout.write(`wrote ${target}\n`);
}
