/** Hosts a native app listens on (RFC 8252 §7.3; `localhost` too, as MCP clients send it, §8.3). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** Whether `uri` is an http loopback redirect, whose port the app picks at the time of the request. */
export function isLoopback(uri: URL): boolean {
  return uri.protocol === 'http:' && LOOPBACK_HOSTS.has(uri.hostname);
}

/**
 * Why `uri` may not be registered as a redirect URI, or undefined: absolute, no fragment (RFC 6749
 * §3.1.2), https or an http loopback (OAuth 2.1 §2.3.1), or a private-use scheme (RFC 8252 §7.1).
 */
export function redirectUriRefusal(uri: string): string | undefined {
  // The parser drops whitespace and controls silently: what is stored must be where the browser goes.
  const control = [...uri].some((char) => char < ' ' || char === '\u007f');
  if (control || /\s/.test(uri)) return 'must have no whitespace or control characters';
  if (!URL.canParse(uri)) return 'not an absolute URI';
  const url = new URL(uri);
  if (url.hash || uri.includes('#')) return 'must have no fragment';
  if (url.username || url.password) return 'must have no user or password';
  if (url.protocol === 'https:' || isLoopback(url)) return undefined;
  // A private-use scheme is reverse DNS (com.example.app:/cb): one with a dot, never http.
  if (url.protocol !== 'http:' && /^[a-z][a-z0-9+-]*\.[a-z0-9.+-]+:$/.test(url.protocol)) {
    return undefined;
  }
  return 'must be https, an http loopback address, or a private-use scheme';
}

/**
 * Whether `sent` is one of the client's registered redirect URIs: exact string comparison (OAuth
 * 2.1 §4.1.1, RFC 6749 §3.1.2.3), but an http loopback one matches on any port (RFC 8252 §7.3),
 * everything else (user info, path, query) the same. The response goes to `sent` as sent.
 */
export function redirectUriRegistered(registered: readonly string[], sent: string): boolean {
  if (registered.includes(sent)) return true;
  if (!URL.canParse(sent) || sent.includes('#')) return false;
  const asked = new URL(sent);
  if (!isLoopback(asked)) return false;
  return registered.some((uri) => {
    if (!URL.canParse(uri)) return false;
    const known = new URL(uri);
    if (!isLoopback(known)) return false;
    known.port = asked.port;
    return known.href === asked.href;
  });
}
