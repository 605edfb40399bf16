import type { RouterContext } from '@koa/router';
import type { PrivateTokenClaims } from '../crypto/access-tokens.js';
import type { LoginIdentity } from '../crypto/login-tokens.js';
import type { DpopProof } from '../crypto/dpop.js';

/**
 * How an endpoint speaks errors: `oauth` is RFC 6749 §5.2 (token endpoint), `bearer` is RFC 6750
 * (a WWW-Authenticate challenge plus a problem body), `problem` is RFC 9457.
 */
export type ErrorDialect = 'problem' | 'oauth' | 'bearer';

/** What the edge learns about a request as it goes, typed once instead of cast at each use. */
export interface RequestState {
  /** Ours, for every request; in the log and in every event it causes. */
  requestId: string;
  /** The caller's own X-Request-Id, when well-formed. */
  clientRequestId?: string;
  /** How this route's errors are written. */
  errorDialect: ErrorDialect;
  /** Learnt by authentication; logged with the request. */
  spaceId?: string;
  clientId?: string;
  user?: LoginIdentity;
  privateToken?: PrivateTokenClaims;
  /** The checked DPoP proof presented with a private token, if any. */
  dpop?: DpopProof;
  /** Which budget refused the request (a 429), for the metrics. */
  rateLimitPolicy?: string;
}

/** A route's context: Koa's, with {@link RequestState} and the router's params. */
export type RequestContext = RouterContext<RequestState>;
