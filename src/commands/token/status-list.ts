import { createHash } from 'node:crypto';
import { encodeStatusList, STATUS_INVALID } from '#verifier/status-list-codec.js';
import { parseEventData } from '../../domain/events.js';
import { voidingJtis } from '../../domain/policy.js';
import { fullForm } from '../../domain/stored-form.js';
import { statusListUri, tokenClaims } from '../../domain/token/claims.js';
import { isIssuance } from '../../domain/token/issuances.js';
import { secondsOf } from '../../domain/times.js';
import { UnavailableError } from '../../errors/errors.js';
import { signJwt, type AccessTokenClaims } from '../../crypto/access-tokens.js';
import { STATUS_LIST_SIZE } from '../../crypto/status-slots.js';
import type { ListEntries, PublishedList } from '../../domain/status-list/decide.js';
import type { StatusListEntry } from '../../projections/status-list-entries.js';
import type { CommandContext } from '../context.js';
import { ownSigning, type SigningPorts } from './issuance.js';
import { tokenStands, type TokenStandingPorts } from './introspect.js';

/** How long a verifier may keep a list before fetching it again (draft §5.1 `ttl`), seconds. */
export const STATUS_LIST_TTL_SECONDS = 30;
/** A list token's lifetime: a verifier that could not fetch a newer one stops trusting it then. */
const STATUS_LIST_LIFETIME_SECONDS = 120;
/** Past this projector lag a list would miss tokens issued (and revoked) since: 503 instead. */
const MAX_ENTRIES_LAG_SECONDS = 5;
// Entries judged between two yields to the event loop: a list never stalls other requests long.
const YIELD_EVERY = 1000;

/** What a list is judged from (`statusListReads` in src/projections). */
export interface StatusListReads {
  entries(spaceId: string, listId: string): Promise<StatusListEntry[]>;
  revokedAmong(jtis: readonly string[]): Promise<ReadonlySet<string>>;
  switchOverEnded(spaceId: string): Promise<boolean>;
  lagSeconds(): Promise<number>;
}

/** What building a list reads: each token's standing, the clock, and what signs for the space. */
export type StatusListPorts = Omit<TokenStandingPorts, 'revocations'> &
  SigningPorts &
  Pick<CommandContext, 'clock'>;

/**
 * A space's status list as a signed `statuslist+jwt` (draft-ietf-oauth-status-list §5.1), signed
 * by the ring its tokens were (`ring`): an entry is INVALID when its token no longer stands by the
 * rule introspection answers by ({@link tokenStands}), or is a shared-ring token of a space whose
 * switch-over an admin ended. Expiry is not marked (§7.1: a verifier reads `exp` first), so the
 * list says nothing of when its tokens were issued. 503 while the entries lag the log.
 * `unreadable`: entries whose event could not be read, INVALID (not vouched for), for the log.
 */
export async function statusListToken(
  ctx: StatusListPorts,
  reads: StatusListReads,
  list: { readonly spaceId: string; readonly listId: string; readonly ring: 'own' | 'shared' },
): Promise<{
  readonly jwt: string;
  readonly unreadable: number;
  readonly built: PublishedList;
  readonly entries: ListEntries;
}> {
  const { spaceId, listId, ring } = list;
  if ((await reads.lagSeconds()) > MAX_ENTRIES_LAG_SECONDS) {
    throw new UnavailableError('the status lists are behind the log; retry shortly', {
      retryAfterSeconds: 2,
    });
  }
  const invalid: Array<readonly [number, number]> = [];
  const judged: Array<readonly [number, AccessTokenClaims]> = [];
  const read = await reads.entries(spaceId, listId);
  for (const [i, entry] of read.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
    const claims = claimsOf(entry, ctx.issuer, spaceId);
    if (claims) judged.push([entry.idx, claims]);
    // An entry that cannot be read is not vouched for; the rest of the list still is.
    else invalid.push([entry.idx, STATUS_INVALID]);
  }
  const unreadable = invalid.length;
  const revoked = await reads.revokedAmong([
    ...new Set(judged.flatMap(([, claims]) => voidingJtis(claims))),
  ]);
  const judge = { ...ctx, revocations: { isRevoked: (jti: string) => revoked.has(jti) } };
  const ended =
    ring === 'shared' && ctx.spaceKeys?.store.signsOwn(spaceId) === true
      ? await reads.switchOverEnded(spaceId)
      : false;
  for (const [i, [idx, claims]] of judged.entries()) {
    if (i % YIELD_EVERY === YIELD_EVERY - 1) await yieldToLoop();
    if (ended || !(await tokenStands(judge, claims))) invalid.push([idx, STATUS_INVALID]);
  }
  // The ring the list's id names, whatever this replica's view of the space's switch may be.
  const own = await ownSigning(ctx, spaceId, ring === 'own').catch((error: unknown) => {
    throw new UnavailableError("the space's signing ring cannot be read; retry shortly", {
      cause: error,
    });
  });
  if (ring === 'own' && !own) throw new UnavailableError('this replica signs with no own rings');
  const iat = secondsOf(ctx.clock.now());
  const lst = encodeStatusList(STATUS_LIST_SIZE, 1, invalid);
  const exp = iat + STATUS_LIST_LIFETIME_SECONDS;
  const claims = {
    iss: own?.issuer ?? ctx.issuer,
    sub: statusListUri(ctx.issuer, spaceId, listId),
    iat,
    exp,
    ttl: STATUS_LIST_TTL_SECONDS,
    status_list: { bits: 1, lst },
  };
  const key = own?.key ?? ctx.keys.current();
  const jwt = await signJwt(key, claims, 'statuslist+jwt', spaceId);
  const lst_sha256 = createHash('sha256').update(lst).digest('hex');
  const latestExp = judged.reduce<number | undefined>(
    (latest, [, { exp }]) => Math.max(latest ?? exp, exp),
    undefined,
  );
  const built = {
    list_id: listId,
    ring,
    kid: key.kid,
    iat,
    exp,
    lst_sha256,
    ...(latestExp === undefined ? {} : { latest_exp: latestExp }),
    jwt,
  };
  const entries = {
    count: read.length,
    unreadable,
    ...(latestExp === undefined ? {} : { latestExp }),
  };
  return { jwt, unreadable, built, entries };
}

/** An entry's token claims, read from its stored issuance event; undefined when unreadable. */
function claimsOf(entry: StatusListEntry, issuer: string, spaceId: string) {
  if (!isIssuance(entry.type) || entry.idx >= STATUS_LIST_SIZE) return undefined;
  try {
    // Claims to judge by, never to sign: what an entry does not keep is filled in blank.
    const kept = entry.data as { assertion?: object };
    const stored = {
      customer_id: '',
      segment_id: '',
      issued_at: 0,
      ...kept,
      ...(kept.assertion && { assertion: { sub: '', jti: '', ...kept.assertion } }),
    };
    const event = { eventId: '', metadata: {}, streamId: entry.streamId, type: entry.type };
    const { data } = fullForm({ ...event, data: stored });
    return tokenClaims(
      { type: entry.type, data: parseEventData(entry.type, data) },
      issuer,
      spaceId,
    );
  } catch {
    return undefined;
  }
}

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
