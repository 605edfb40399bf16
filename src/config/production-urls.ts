/**
 * Production's rules for the two URLs a token's trust rests on, TOKEN_ISSUER and LOGIN_JWKS_URL:
 * over plain http anyone on the path can rewrite either, so https only, except for the hosts
 * ALLOW_HTTP_HOSTS names (a private network's), which the API says at start.
 */

/** The settings these rules read, as the schema has parsed them. */
export interface UrlSettings {
  readonly TOKEN_ISSUER: string;
  readonly LOGIN_JWKS_URL?: string | undefined;
  readonly ALLOW_HTTP_HOSTS?: readonly string[] | undefined;
}

const URL_SETTINGS = ['TOKEN_ISSUER', 'LOGIN_JWKS_URL'] as const;

/** A name that can only mean "every host": an allowance must name the host it trusts. */
const EVERY_HOST = /^(\*|0\.0\.0\.0|::)$/;

/**
 * What production refuses, one line per setting (empty: nothing). `given` is the environment as
 * set (empty values dropped): the default issuer (`http://localhost:8080`) is a development
 * convenience, never what a production token may carry, so TOKEN_ISSUER must be set explicitly.
 */
export function productionUrlProblems(
  settings: UrlSettings,
  given: Readonly<Record<string, string | undefined>>,
): string[] {
  const problems: string[] = [];
  if (!('TOKEN_ISSUER' in given)) {
    problems.push(
      'TOKEN_ISSUER: with NODE_ENV=production it is required: the public https URL clients reach this service at (it is every token\'s "iss")',
    );
  }
  const everyHost = (settings.ALLOW_HTTP_HOSTS ?? []).filter((host) => EVERY_HOST.test(host));
  if (everyHost.length > 0) {
    problems.push(
      `ALLOW_HTTP_HOSTS: names hosts, one by one; "${everyHost.join('", "')}" would allow every host`,
    );
  }
  for (const name of URL_SETTINGS) {
    const value = settings[name];
    if (value === undefined || !(name in given)) continue;
    const url = new URL(value);
    if (url.protocol === 'https:') continue;
    if (url.protocol === 'http:' && allowedHttpHost(settings, url)) continue;
    problems.push(
      `${name}: with NODE_ENV=production it must be an https:// URL (got ${url.protocol}//${url.host}); name the host in ALLOW_HTTP_HOSTS to allow http to it on a private network`,
    );
  }
  return problems;
}

/** The URLs taken over plain http because ALLOW_HTTP_HOSTS names their host: said at start. */
export function httpAllowedUrls(settings: UrlSettings): string[] {
  return URL_SETTINGS.flatMap((name) => {
    const value = settings[name];
    if (value === undefined) return [];
    const url = new URL(value);
    return url.protocol === 'http:' && allowedHttpHost(settings, url)
      ? [`${name}=${url.protocol}//${url.host}`]
      : [];
  });
}

function allowedHttpHost(settings: UrlSettings, url: URL): boolean {
  // URL.hostname keeps an IPv6 literal's brackets; the setting may be written either way.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (settings.ALLOW_HTTP_HOSTS ?? []).some(
    (allowed) => allowed.replace(/^\[(.*)\]$/, '$1').toLowerCase() === host,
  );
}
