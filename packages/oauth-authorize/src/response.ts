import type { AuthorizeErrorCode } from './request.js';

/** `uri` with `parameters` added to its query, which is kept (RFC 6749 §3.1.2). */
function withParameters(uri: string, parameters: Readonly<Record<string, string | undefined>>) {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.append(name, value);
  }
  return url.href;
}

/** Where the browser goes with the code: `code`, `state` as sent, and `iss` (RFC 9207 §2). */
export function codeResponse(
  redirectUri: string,
  answer: { readonly code: string; readonly state?: string | undefined; readonly iss: string },
): string {
  return withParameters(redirectUri, { code: answer.code, state: answer.state, iss: answer.iss });
}

/** Where the browser goes with a refusal (RFC 6749 §4.1.2.1), `iss` too (RFC 9207 §2). */
export function errorResponse(
  redirectUri: string,
  answer: {
    readonly error: AuthorizeErrorCode;
    readonly description?: string | undefined;
    readonly state?: string | undefined;
    readonly iss: string;
  },
): string {
  return withParameters(redirectUri, {
    error: answer.error,
    error_description: answer.description && errorDescription(answer.description),
    state: answer.state,
    iss: answer.iss,
  });
}

/** RFC 6749 §4.1.2.1: error_description is %x20-21 / %x23-5B / %x5D-7E only. */
const errorDescription = (text: string) => text.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, "'");
