import { CODE_CHALLENGE_METHODS, codeChallengeRefusal } from './pkce.js';
import { redirectUriRegistered } from './redirect-uri.js';

/** The error codes an authorization endpoint answers (RFC 6749 §4.1.2.1, RFC 8707 §2, RFC 9396 §5). */
export type AuthorizeErrorCode =
  | 'invalid_request'
  | 'unauthorized_client'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'invalid_target'
  | 'invalid_authorization_details';

/** An authorization request that holds: what the client asked for, in its own words. */
export interface AuthorizationRequest {
  readonly clientId: string;
  /** As sent (a loopback one with the port it chose), or the one registered when none was sent. */
  readonly redirectUri: string;
  /** S256 only. */
  readonly codeChallenge: string;
  readonly scopes: readonly string[];
  readonly state?: string;
  /** RFC 8707: the one protected resource the token is for. */
  readonly resource?: string;
  /** RFC 9396, parsed but not judged: what each type allows is the caller's to say. */
  readonly authorizationDetails?: readonly Readonly<Record<string, unknown>>[];
}

/**
 * A request judged: `ok`, or refused where RFC 6749 §4.1.2.1 says: `shown` to the user when the
 * client or its redirect URI are not known good (never redirect to an unverified URI), else
 * `redirected` to the client with the error, its state and the issuer.
 */
export type JudgedRequest =
  | { readonly kind: 'ok'; readonly request: AuthorizationRequest }
  | { readonly kind: 'shown'; readonly error: AuthorizeErrorCode; readonly description: string }
  | {
      readonly kind: 'redirected';
      readonly redirectUri: string;
      readonly error: AuthorizeErrorCode;
      readonly description: string;
      readonly state?: string;
    };

/** The longest value any parameter may have: a request URL is no place for a document. */
const MAX_VALUE = 4096;

/** RFC 6749 §3.3: scope-tokens of %x21 / %x23-5B / %x5D-7E, one space between them. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/;

/** `name`'s one value, or why it has none usable (RFC 6749 §3.1: never sent twice). */
function single(query: URLSearchParams, name: string): { value?: string; problem?: string } {
  const values = query.getAll(name);
  if (values.length > 1) return { problem: `${name} was sent more than once` };
  const value = values[0];
  if (value !== undefined && value.length > MAX_VALUE) {
    return { problem: `${name} is longer than ${MAX_VALUE} characters` };
  }
  return value === undefined || value === '' ? {} : { value };
}

/** The client_id the request names, or why it names none (shown: there is no one to redirect to). */
export function requestedClientId(
  query: URLSearchParams,
): { readonly clientId: string } | Extract<JudgedRequest, { kind: 'shown' }> {
  const { value, problem } = single(query, 'client_id');
  if (value !== undefined) return { clientId: value };
  return {
    kind: 'shown',
    error: 'invalid_request',
    description: problem ?? 'client_id is required',
  };
}

/**
 * Judges an authorization request of a known client: its redirect URI first (a wrong one is shown,
 * never followed), then the rest, refused to the client. `redirectUris` are the client's registered
 * ones; without `redirect_uri` the only one registered is used (RFC 6749 §3.1.2.3).
 */
export function judgeAuthorizationRequest(
  query: URLSearchParams,
  client: { readonly clientId: string; readonly redirectUris: readonly string[] },
): JudgedRequest {
  const shown = (description: string): JudgedRequest => ({
    kind: 'shown',
    error: 'invalid_request',
    description,
  });
  const sent = single(query, 'redirect_uri');
  if (sent.problem) return shown(sent.problem);
  if (sent.value === undefined && client.redirectUris.length !== 1) {
    return shown('redirect_uri is required: the client registered more than one');
  }
  const redirectUri = sent.value ?? client.redirectUris[0]!;
  if (!redirectUriRegistered(client.redirectUris, redirectUri)) {
    return shown('redirect_uri is not one the client registered');
  }
  const state = single(query, 'state');
  const refused = (error: AuthorizeErrorCode, description: string): JudgedRequest => ({
    kind: 'redirected',
    redirectUri,
    error,
    description,
    ...(state.value === undefined ? {} : { state: state.value }),
  });
  if (state.problem) return refused('invalid_request', state.problem);
  const type = single(query, 'response_type');
  if (type.problem) return refused('invalid_request', type.problem);
  if (type.value === undefined) return refused('invalid_request', 'response_type is required');
  if (type.value !== 'code') {
    return refused('unsupported_response_type', 'response_type must be code');
  }
  const mode = single(query, 'response_mode');
  if (mode.problem || (mode.value !== undefined && mode.value !== 'query')) {
    return refused('invalid_request', 'response_mode must be query, or not sent');
  }
  const pkce = codeChallengeOf(query);
  if (typeof pkce !== 'string') return refused('invalid_request', pkce.problem);
  const scope = single(query, 'scope');
  if (scope.problem) return refused('invalid_scope', scope.problem);
  if (scope.value !== undefined && !SCOPE.test(scope.value)) {
    return refused('invalid_scope', 'scope must be words of printable ASCII, one space apart');
  }
  const resources = query.getAll('resource');
  if (resources.length > 1) return refused('invalid_target', 'send one resource per request');
  const resource = resources[0];
  if (resource !== undefined) {
    const why = resourceRefusal(resource);
    if (why) return refused('invalid_target', `resource ${why}`);
  }
  const details = authorizationDetailsOf(query);
  if (details && 'problem' in details) {
    return refused('invalid_authorization_details', details.problem);
  }
  return {
    kind: 'ok',
    request: {
      clientId: client.clientId,
      redirectUri,
      codeChallenge: pkce,
      scopes: scope.value === undefined ? [] : [...new Set(scope.value.split(' '))],
      ...(state.value === undefined ? {} : { state: state.value }),
      ...(resource === undefined ? {} : { resource }),
      ...(details === undefined ? {} : { authorizationDetails: details }),
    },
  };
}

/** The S256 challenge, or why there is none: PKCE is required, `plain` refused (OAuth 2.1 §4.1.1). */
function codeChallengeOf(query: URLSearchParams): string | { readonly problem: string } {
  const challenge = single(query, 'code_challenge');
  if (challenge.problem) return { problem: challenge.problem };
  if (challenge.value === undefined) return { problem: 'code_challenge is required (PKCE, S256)' };
  const method = single(query, 'code_challenge_method');
  // Absent means plain (RFC 7636 §4.3), which is not taken.
  if (
    method.value === undefined ||
    !(CODE_CHALLENGE_METHODS as readonly string[]).includes(method.value)
  ) {
    return { problem: `code_challenge_method must be ${CODE_CHALLENGE_METHODS.join(' or ')}` };
  }
  const why = codeChallengeRefusal(challenge.value);
  return why ? { problem: `code_challenge ${why}` } : challenge.value;
}

/** RFC 8707 §2: an absolute URI with no fragment. */
function resourceRefusal(resource: string): string | undefined {
  if (resource.length > MAX_VALUE || !URL.canParse(resource)) return 'must be an absolute URI';
  return resource.includes('#') ? 'must have no fragment' : undefined;
}

/** RFC 9396 §2: a JSON array of objects, each with a string `type`. */
function authorizationDetailsOf(
  query: URLSearchParams,
): readonly Readonly<Record<string, unknown>>[] | { readonly problem: string } | undefined {
  const { value, problem } = single(query, 'authorization_details');
  if (problem) return { problem };
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return { problem: 'authorization_details is not JSON' };
  }
  const objects =
    Array.isArray(parsed) &&
    parsed.every(
      (item: unknown) =>
        typeof item === 'object' &&
        item !== null &&
        !Array.isArray(item) &&
        typeof (item as { type?: unknown }).type === 'string',
    );
  if (!objects) return { problem: 'authorization_details must be an array of objects with a type' };
  return parsed as Record<string, unknown>[];
}
