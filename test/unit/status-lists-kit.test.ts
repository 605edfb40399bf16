import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { encodeStatusList } from '../../packages/verifier/src/status-list-codec.js';
import {
  createStatusLists,
  StatusListRefusal,
  StatusListUnavailable,
} from '../../packages/verifier/src/status-lists.js';

const BASE = 'https://tokens.example';
const ISS = BASE;
const URI = `${BASE}/spaces/s1/statuslists/AAAAAAAAAAAAAAAAAAAAAA`;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const keys = {
  publicKey: (kid: string) => (kid === 'k1' ? publicKey : undefined),
  refreshSoon: async () => {},
};

/** A list token as the service signs it, with `revoked` set INVALID; `changes` alter it. */
const listToken = (revoked: number[], changes: { typ?: string; sub?: string; ttl?: number } = {}) =>
  new SignJWT({
    ttl: changes.ttl ?? 30,
    status_list: {
      bits: 1,
      lst: encodeStatusList(
        64,
        1,
        revoked.map((i) => [i, 1] as const),
      ),
    },
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: changes.typ ?? 'statuslist+jwt', kid: 'k1' })
    .setIssuer(ISS)
    .setSubject(changes.sub ?? URI)
    .setIssuedAt()
    .setExpirationTime('2m')
    .sign(privateKey);

/** The kit's lists over a served body; `clock` moves its time, `asked` counts fetches. */
function lists(serve: () => Promise<Response>) {
  const clock = { now: Date.now() };
  const asked: string[] = [];
  const statusLists = createStatusLists({
    keys,
    serviceBase: BASE,
    fetchBase: 'http://127.0.0.1:1',
    fetch: async (input) => {
      asked.push(String(input));
      return serve();
    },
    now: () => clock.now,
    maxStaleMs: 60_000,
  });
  return { statusLists, clock, asked };
}

describe("the kit's status lists (draft-ietf-oauth-status-list §8.3)", () => {
  it('reads an entry, fetches once within the ttl, and again after it', async () => {
    const jwt = await listToken([3]);
    const { statusLists, clock, asked } = lists(async () => new Response(jwt));
    expect(await statusLists.statusOf({ idx: 3, uri: URI }, ISS)).toBe(1);
    expect(await statusLists.statusOf({ idx: 4, uri: URI }, ISS)).toBe(0);
    expect(asked).toEqual([`http://127.0.0.1:1/spaces/s1/statuslists/AAAAAAAAAAAAAAAAAAAAAA`]);
    clock.now += 31_000;
    await statusLists.statusOf({ idx: 4, uri: URI }, ISS);
    expect(asked).toHaveLength(2);
  });

  it('never fetches a list outside its issuer', async () => {
    const { statusLists, asked } = lists(async () => new Response(await listToken([])));
    const elsewhere = { idx: 0, uri: 'https://attacker.example/spaces/s1/statuslists/x' };
    await expect(statusLists.statusOf(elsewhere, ISS)).rejects.toBeInstanceOf(StatusListRefusal);
    expect(asked).toEqual([]);
  });

  it.each([
    ['an access token served as the list', { typ: 'at+jwt' }],
    ["another list's token", { sub: `${BASE}/spaces/s2/statuslists/AAAAAAAAAAAAAAAAAAAAAA` }],
  ])('refuses %s', async (_name, changes) => {
    const jwt = await listToken([], changes);
    const { statusLists } = lists(async () => new Response(jwt));
    await expect(statusLists.statusOf({ idx: 0, uri: URI }, ISS)).rejects.toThrow(
      /does not verify/,
    );
  });

  it('refuses an index past the list, a list of another issuer, and an oversized answer', async () => {
    const jwt = await listToken([]);
    const { statusLists } = lists(async () => new Response(jwt));
    await expect(statusLists.statusOf({ idx: 64, uri: URI }, ISS)).rejects.toThrow(/past its list/);
    const other = lists(async () => new Response(jwt)).statusLists;
    await expect(other.statusOf({ idx: 0, uri: URI }, 'https://other.example')).rejects.toThrow(
      /does not verify/,
    );
    const huge = lists(async () => new Response('x'.repeat(300 * 1024))).statusLists;
    await expect(huge.statusOf({ idx: 0, uri: URI }, ISS)).rejects.toThrow(/too large/);
  });

  it('serves the held list while unreachable up to its staleness bound, then fails closed', async () => {
    const jwt = await listToken([]);
    let up = true;
    const { statusLists, clock } = lists(async () => {
      if (!up) throw new TypeError('fetch failed');
      return new Response(jwt);
    });
    await statusLists.statusOf({ idx: 0, uri: URI }, ISS);
    up = false;
    clock.now += 40_000;
    expect(await statusLists.statusOf({ idx: 0, uri: URI }, ISS)).toBe(0);
    clock.now += 30_000;
    await expect(statusLists.statusOf({ idx: 0, uri: URI }, ISS)).rejects.toBeInstanceOf(
      StatusListUnavailable,
    );
  });
});
