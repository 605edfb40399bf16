import { timingSafeEqual } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import { z } from 'zod';
import { ACCESS_TOKEN_ALG } from './algorithms.js';
import type { PublicKeys } from './issuer-keys.js';
import { keyOf } from './status-lists.js';

const CAEP = 'https://schemas.openid.net/secevent/caep/event-type/';
const SESSION_REVOKED = `${CAEP}session-revoked`;
const CREDENTIAL_CHANGE = `${CAEP}credential-change`;

/** A SET's largest body: one event, a few hundred bytes; anything near this is no SET of ours. */
export const MAX_SET_BYTES = 64 * 1024;

/** RFC 8935 §2.3's error codes, as a refused SET is answered (400 with `{err, description}`). */
export type SignalError =
  | 'invalid_request'
  | 'invalid_key'
  | 'invalid_issuer'
  | 'invalid_audience'
  | 'authentication_failed';

/** A pushed SET refused: answered 400 with `{err, description}` (RFC 8935 §2.3). */
export class SignalRefused extends Error {
  constructor(
    readonly err: SignalError,
    description: string,
  ) {
    super(description);
  }
}

/** What a SET told the kit: a token revoked, a client's credential revoked, or read the list again. */
export type Heard =
  | { readonly token: string }
  | { readonly client: string; readonly at: number }
  | { readonly refresh: true };

const setClaims = z.object({
  jti: z.string().max(200),
  sub_id: z.looseObject({ format: z.string(), id: z.string().max(500).optional() }),
  events: z
    .record(z.string(), z.looseObject({ change_type: z.string().optional() }))
    .refine((events) => Object.keys(events).length === 1, 'one event per SET'),
});

/** The pushed SET as an adapter hands it over. */
export interface PushedSignal {
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
}

const same = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * An RFC 8935 push receiver for one Shared Signals stream of one space: a SET is taken only with
 * the stream's `Authorization`, as `application/secevent+jwt`, signed by the space's own keys,
 * naming its issuer and the stream as `aud`, with neither `exp` nor `sub` (SSF 1.0 §4). A
 * signal can only tighten what the kit accepts (a revocation, or the list read again), so a SET
 * sent twice or late does no harm; an unknown event type is taken and ignored.
 */
export function createSignalReceiver(options: {
  readonly keys: PublicKeys;
  readonly issuer: string;
  readonly streamId: string;
  /** The stream's secret: `Authorization: Bearer <it>` is required of each push. */
  readonly secret?: string;
  readonly now: () => number;
  readonly heard: (heard: Heard) => void;
}) {
  return async function receive(pushed: PushedSignal): Promise<void> {
    const { secret } = options;
    if (secret !== undefined && !same(pushed.authorization ?? '', `Bearer ${secret}`)) {
      throw new SignalRefused('authentication_failed', "not the stream's Authorization");
    }
    if (!/^application\/secevent\+jwt\s*(;|$)/i.test(pushed.contentType ?? '')) {
      throw new SignalRefused('invalid_request', 'expected Content-Type application/secevent+jwt');
    }
    if (Buffer.byteLength(pushed.body) > MAX_SET_BYTES) {
      throw new SignalRefused('invalid_request', 'the SET is too large');
    }
    const { payload } = await jwtVerify(pushed.body, (header) => keyOf(options.keys, header.kid), {
      typ: 'secevent+jwt',
      algorithms: [ACCESS_TOKEN_ALG],
      issuer: options.issuer,
      audience: options.streamId,
      currentDate: new Date(options.now()),
    }).catch((error: unknown) => {
      const claim = error instanceof errors.JWTClaimValidationFailed ? error.claim : undefined;
      if (claim === 'iss') throw new SignalRefused('invalid_issuer', 'not the stream issuer');
      if (claim === 'aud') throw new SignalRefused('invalid_audience', 'not this stream');
      throw new SignalRefused(
        'invalid_key',
        `the SET does not verify (${(error as Error).message})`,
      );
    });
    if (payload.exp !== undefined || payload.sub !== undefined) {
      throw new SignalRefused('invalid_request', 'a SET carries neither exp nor sub (SSF 1.0 §4)');
    }
    const claims = setClaims.safeParse(payload);
    if (!claims.success) throw new SignalRefused('invalid_request', 'the SET is malformed');
    const [[uri, event]] = Object.entries(claims.data.events) as [
      [string, { change_type?: string }],
    ];
    const { format, id } = claims.data.sub_id;
    const subject = format === 'opaque' ? id : undefined;
    if (uri === SESSION_REVOKED && subject) options.heard({ token: subject });
    else if (uri === CREDENTIAL_CHANGE && event.change_type === 'revoke' && subject) {
      options.heard({ client: subject, at: ((payload.iat as number | undefined) ?? 0) * 1000 });
    } else if (uri.startsWith(CAEP) || uri.includes('/risc/')) options.heard({ refresh: true });
  };
}
