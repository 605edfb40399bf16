import type { PushedSignal } from './signals.js';
import type { JWTPayload } from 'jose';
import type { ActorClaim } from './actor-claim.js';
import type { DelegationRequirements } from './delegation-rule.js';
import type { ResourceMetadata, ResourceMetadataOptions } from './resource-metadata.js';

/** The claims of a token that passed, as the issuer signed them, and its `act` chain as a list. */
export interface VerifiedToken extends JWTPayload {
  readonly token_kind: 'private' | 'public';
  readonly client_id: string;
  readonly space_id: string;
  readonly jti: string;
  readonly customer_id?: string;
  readonly segment_id?: string;
  readonly parent_jti?: string;
  /** Delegated: the tokens it was exchanged from, the nearest first; revoking one voids it. */
  readonly subject_jtis?: readonly string[];
  readonly cnf?: { readonly jkt: string };
  /** The scopes granted, space-delimited (RFC 9068 §2.2.3); absent when none were. */
  readonly scope?: string;
  /** RFC 8693 §4.1: who acts, the earlier actors nested (a public token's alone). */
  readonly act?: ActorClaim;
  /** RFC 8693 §4.4: the agent the customer allowed to exchange this token. */
  readonly may_act?: { readonly sub: string };
  /** Draft-ietf-oauth-status-list §6.1: where its status is published. */
  readonly status?: { readonly status_list: { readonly idx: number; readonly uri: string } };
  /**
   * Not a claim: `act` as a list, outermost first — the agent presenting the token, the agents it
   * acts through, last the client that bought the customer's token; `[]` for a private token.
   * More than one: an agent acts for the customer.
   */
  readonly actors: readonly string[];
}

/** The request parts verification reads: any framework's request fits. */
export interface VerifiableRequest {
  readonly method: string;
  /**
   * The URL DPoP proofs must name: the resource server's configured public origin and the path
   * (never built from a client-sent Host or X-Forwarded-Host, which a proof for another
   * deployment would name).
   */
  readonly url: string;
  header(name: string): string | undefined;
}

/** Options of `createVerifier`. */
export interface VerifierOptions {
  /**
   * The issuer whose tokens are accepted: the token service's base URL (its shared issuer), or a
   * space's own issuer, `{base}/spaces/{space_id}` (issue 42), whose tokens alone then pass: keys
   * from `{issuer}/.well-known/jwks.json`, which lists that space's keys only.
   */
  readonly issuer: string;
  /**
   * The token service's base URL, where revocation lists are read; by default the issuer, less a
   * trailing `/spaces/{space_id}`.
   */
  readonly serviceUrl?: string;
  /** The audience(s) this resource server accepts. */
  readonly audience: string | readonly string[];
  /** The token kinds accepted unless a route says otherwise; default: public only. */
  readonly kinds?: readonly ('private' | 'public')[];
  /**
   * The scopes every route requires unless it says otherwise (all of them; default none). A token
   * lacking one is refused with 403 `insufficient_scope`.
   */
  readonly requiredScopes?: readonly string[];
  /**
   * This resource's RFC 9728 metadata (its `authorization_servers` is `issuer`): with it, every
   * 401 and 403 challenge names `resource_metadata`, and the metadata adapters serve it.
   */
  readonly resourceMetadata?: ResourceMetadataOptions;
  /** How often a space's revocation list is re-polled (seconds; default 10). */
  readonly revocationRefreshSeconds?: number;
  /** How stale a revocation list may be before tokens are refused (seconds; default 60). */
  readonly revocationMaxStaleSeconds?: number;
  /**
   * Whether a token's `status.status_list` is read (draft-ietf-oauth-status-list): its list fetched
   * once within its `ttl`, stale for at most revocationMaxStaleSeconds (else 503). Default true.
   */
  readonly statusLists?: boolean;
  /**
   * The Shared Signals stream this resource server receives by push (SSF 1.0, RFC 8935): its
   * space (whose own issuer signs its SETs), its id (the SETs' `aud`) and the secret shown when
   * it was made (`Authorization: Bearer <secret>` on each push). A revocation pushed is in force
   * at the next request, before the revocation list's next poll; `receiveSignal` takes each SET.
   */
  readonly signals?: {
    readonly space: string;
    readonly streamId: string;
    readonly secret?: string;
  };
  /** DPoP proof ids remembered at once (default 100,000); past it new proofs get 503. */
  readonly replayCacheMaxEntries?: number;
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
}

/** What one route accepts; each given replaces the verifier's default. */
export interface RouteRequirements extends DelegationRequirements {
  /** The token kinds this route accepts. */
  readonly kinds?: readonly ('private' | 'public')[];
  /**
   * The scopes this route requires, all of them (RFC 6749 §3.3 words; `[]`: none). A token
   * lacking one is refused with 403 and `WWW-Authenticate: Bearer error="insufficient_scope",
   * scope="…"` (RFC 6750 §3.1), after the token itself verified.
   */
  readonly requiredScopes?: readonly string[];
}

/** A verifier for the tokens of one token service; see `createVerifier`. */
export interface Verifier {
  verify(request: VerifiableRequest, options?: RouteRequirements): Promise<VerifiedToken>;
  /** What the metadata adapters serve, when `resourceMetadata` was given. */
  readonly resourceMetadata: ResourceMetadata | undefined;
  /**
   * Takes one pushed SET of the `signals` stream (`signalResponse` answers RFC 8935 for it);
   * throws SignalRefused (answer 400 `{err, description}`), or when no stream is configured.
   */
  receiveSignal(pushed: PushedSignal): Promise<void>;
}
