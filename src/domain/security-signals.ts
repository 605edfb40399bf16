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

/** Whom a signal is about: one access token (by its jti), or one client's credential. */
export type SignalSubject = { readonly token: string } | { readonly client: string };

/** One signal a recorded event gives: its type, its subject and the type's own fields. */
export interface SecuritySignal {
  readonly type: SignalType;
  readonly subject: SignalSubject;
  /** The type's fields (CAEP's `change_type`, `claims`…), beside `event_timestamp`. */
  readonly fields?: Readonly<Record<string, unknown>>;
}
