import { describe, expect, it } from 'vitest';
import {
  decidePublishList,
  ENDED_AFTER_SECONDS,
  REPUBLISH_AFTER_SECONDS,
  validAt,
  type ListEntries,
  type PublishedList,
} from '../../../src/domain/status-list/decide.js';

const metadata = { actor: 'service', request_id: 'e1', client_ip: 'local', user_agent: null };
const T = 1_790_000_000;
const version = (over: Partial<PublishedList> = {}): PublishedList => ({
  list_id: 'AAAAAAAAAAAAAAAAAAAAAA',
  ring: 'shared',
  kid: 'k1',
  iat: T,
  exp: T + 120,
  lst_sha256: 'a'.repeat(64),
  jwt: 'header.claims.signature',
  ...over,
});
const live: ListEntries = { count: 3, unreadable: 0, latestExp: T + 600 };
const publish = (
  built: PublishedList,
  last: Parameters<typeof decidePublishList>[1],
  now = built.iat,
  entries = live,
) => decidePublishList({ eventId: 'e1', metadata, spaceId: 's1', built, entries, now }, last);
const served = (decision: ReturnType<typeof publish>) =>
  decision.ok ? decision.facts.served : decision.refusal;

describe('status list versions published (issue 65, item 4)', () => {
  it('given no version yet, when one is built, then it is published and served', () => {
    const built = version();
    const decision = publish(built, undefined);
    expect(decision.events.map((event) => [event.type, event.data])).toEqual([
      ['status-list-published', built],
    ]);
    expect(served(decision)).toBe(built);
  });

  it('given a young version saying the same, when one is built, then the logged one is served again and nothing is published', () => {
    const last = version();
    const built = version({ iat: T + 30, exp: T + 150, jwt: 'newer.jwt.sig' });
    const decision = publish(built, last);
    expect(decision.events).toEqual([]);
    expect(served(decision)).toEqual(last);
  });

  it('given a version that says the same but is old, or differs in its bits, key or ring, then the built one is published', () => {
    const last = version();
    const later = T + REPUBLISH_AFTER_SECONDS;
    expect(publish(version({ iat: later, exp: later + 120 }), last).events).toHaveLength(1);
    expect(publish(version({ iat: T + 5, lst_sha256: 'b'.repeat(64) }), last).events).toHaveLength(
      1,
    );
    expect(publish(version({ iat: T + 5, kid: 'k2' }), last).events).toHaveLength(1);
    expect(publish(version({ iat: T + 5, ring: 'own' }), last).events).toHaveLength(1);
    // Another replica's clock a little ahead: its version is still served; far ahead, not.
    expect(publish(version({ iat: T - 5 }), last).events).toHaveLength(0);
    expect(publish(version({ iat: T - 31 }), last).events).toHaveLength(1);
  });

  it('given a list whose tokens all expired an hour and more ago, or whose entries were purged since a version, then it is ended: nothing published', () => {
    const last = version();
    const now = T + 600 + ENDED_AFTER_SECONDS + 1;
    const built = version({ iat: now, exp: now + 120 });
    expect(served(publish(built, last, now))).toBe('ended');
    // Within the hour a token may still join it: published.
    expect(served(publish(built, last, now - 2))).toBe(built);
    // An entry unreadable is not vouched expired: published.
    expect(served(publish(built, last, now, { ...live, unreadable: 1 }))).toBe(built);
    // No entries left: judged by the latest exp the last version was judged from.
    const none = { count: 0, unreadable: 0 };
    const judged = { ...last, latest_exp: T + 600 };
    expect(served(publish(built, judged, now, none))).toBe('ended');
    expect(served(publish(built, judged, now - 2, none))).toBe(built);
    // None ever seen: a list just opened (its first entry not yet projected) is published...
    const fresh = version({ iat: T + 4 });
    expect(served(publish(fresh, undefined, T + 4, none))).toBe(fresh);
    expect(served(publish(fresh, { ...last, settled: false }, T + 400, none))).not.toBe('ended');
    // ...and ends once a version without any is minutes old by the database's clock.
    expect(served(publish(fresh, { ...last, settled: true }, T + 4, none))).toBe('ended');
  });

  it('given a version, then it is valid from its iat until before its exp, and no other time', () => {
    const published = version();
    expect([T - 1, T, T + 119, T + 120].map((time) => validAt(published, time))).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(validAt(undefined, T)).toBe(false);
  });
});
