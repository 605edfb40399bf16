import { describe, expect, it } from 'vitest';
import {
  decidePublishList,
  REPUBLISH_AFTER_SECONDS,
  validAt,
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
const publish = (built: PublishedList, last: PublishedList | undefined, now = built.iat) =>
  decidePublishList({ eventId: 'e1', metadata, spaceId: 's1', built, now }, last);

describe('status list versions published (issue 65, item 4)', () => {
  it('given no version yet, when one is built, then it is published and served', () => {
    const built = version();
    const decision = publish(built, undefined);
    expect(decision.events.map((event) => [event.type, event.data])).toEqual([
      ['status-list-published', built],
    ]);
    expect(decision.facts.served).toBe(built);
  });

  it('given a young version saying the same, when one is built, then the logged one is served again and nothing is published', () => {
    const last = version();
    const built = version({ iat: T + 30, exp: T + 150, jwt: 'newer.jwt.sig' });
    const decision = publish(built, last);
    expect(decision.events).toEqual([]);
    expect(decision.facts.served).toBe(last);
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
    // A replica whose clock is behind the last version's never serves it as if it were young.
    expect(publish(version({ iat: T - 5 }), last).events).toHaveLength(1);
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
