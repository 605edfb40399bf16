/**
 * The Shared Signals this service sends (OpenID SSF 1.0 with CAEP 1.0 and RISC 1.0), each by the
 * URI a receiver asks for it by. Which recorded event gives which signal is declared with the
 * event (`signal` in src/domain/event-data/*.ts): this file only names them.
 */
export const SIGNAL_TYPES = {
  'session-revoked': 'https://schemas.openid.net/secevent/caep/event-type/session-revoked',
  'credential-change': 'https://schemas.openid.net/secevent/caep/event-type/credential-change',
  'token-claims-change': 'https://schemas.openid.net/secevent/caep/event-type/token-claims-change',
  'credential-compromise':
    'https://schemas.openid.net/secevent/risc/event-type/credential-compromise',
} as const;

export type SignalType = keyof typeof SIGNAL_TYPES;
export type SignalUri = (typeof SIGNAL_TYPES)[SignalType];
export const SIGNAL_URIS = Object.values(SIGNAL_TYPES) as [SignalUri, ...SignalUri[]];

/** Sent with every stream, whatever it asked for (SSF 1.0 §8.1.4: the verification event). */
export const VERIFICATION_URI = 'https://schemas.openid.net/secevent/ssf/event-type/verification';

/** Whom a signal is about: one access token (by its jti), one client's credential, one stream. */
export type SignalSubject =
  { readonly token: string } | { readonly client: string } | { readonly stream: string };

/** One signal a recorded event gives: its type, its subject and the type's own fields. */
export type SecuritySignal = {
  /** The type's fields (CAEP's `change_type`, `claims`…), beside `event_timestamp`. */
  readonly fields?: Readonly<Record<string, unknown>>;
} & (
  | { readonly type: SignalType; readonly subject: SignalSubject }
  /** A stream's own control signal (SSF 1.0 §8.1.4): to that stream only, asked for or not. */
  | { readonly type: 'verification'; readonly subject: { readonly stream: string } }
);

/** SSF 1.0 §6.1: how a stream's SETs travel, by the URN a receiver names it by. */
export const DELIVERY_METHODS = { push: 'urn:ietf:rfc:8935', poll: 'urn:ietf:rfc:8936' } as const;

/**
 * A receiver manages its streams (SSF 1.0 §8) with a private token for this audience, under the
 * service's issuer so no Storefront API that receives tokens can replay one here, carrying this
 * scope, which an admin grants its credential (it is never a default).
 */
export const STREAMS_AUDIENCE_PATH = '/v1/ssf';
export const STREAMS_SCOPE = 'ssf:streams';
export const streamsAudience = (issuer: string) =>
  `${issuer.replace(/\/$/, '')}${STREAMS_AUDIENCE_PATH}`;

/** SSF 1.0 §8.1.4: the shortest time between two verifications a receiver asks for, seconds. */
export const MIN_VERIFICATION_INTERVAL_SECONDS = 60;
