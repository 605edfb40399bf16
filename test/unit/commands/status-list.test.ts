import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { decodeStatusList } from '../../../packages/verifier/src/status-list-codec.js';
import {
  statusListToken,
  type StatusListPorts,
  type StatusListReads,
} from '../../../src/commands/token/status-list.js';
import type { SigningKey } from '../../../src/crypto/key-store.js';
import type { Credential } from '../../../src/domain/credential/state.js';
import type { StatusListEntry } from '../../../src/projections/status-list-entries.js';

const NOW = Date.UTC(2026, 10, 30, 12);
const SPACE = 's1';
const LIST = 'AAAAAAAAAAAAAAAAAAAAAA';
const key = { kid: 'k1', privateKey: generateKeyPairSync('ed25519').privateKey } as SigningKey;
const active = { clientId: 'ci_a', spaceId: SPACE, status: 'active', scopes: null } as Credential;

/** A stored private-token-issued entry, as the projector keeps it (times in seconds, no jti). */
const entry = (idx: number, jti: string, data: Record<string, unknown> = {}): StatusListEntry => ({
  idx,
  streamId: `token-${jti}`,
  type: 'private-token-issued',
  data: { client_id: 'ci_a', audience: 'shop', expires_at: NOW / 1000 + 600, ...data },
});

/** The list built over `entries` with `revoked` jtis, read back as a verifier would. */
async function given(
  entries: StatusListEntry[],
  options: Partial<StatusListReads> = {},
  spaceSignsOwn = false,
) {
  const reads: StatusListReads = {
    entries: async () => entries,
    revokedAmong: async () => new Set(),
    switchOverEnded: async () => false,
    lagSeconds: async () => 0,
    ...options,
  };
  const ctx = {
    issuer: 'https://tokens.test',
    clock: { now: () => NOW },
    keys: { current: () => key },
    credentials: { find: async (id: string) => (id === 'ci_a' ? active : undefined) },
    scopeCatalog: {},
    ...(spaceSignsOwn ? { spaceKeys: { store: { signsOwn: () => true } } } : {}),
  } as unknown as StatusListPorts;
  const { jwt, unreadable } = await statusListToken(ctx, reads, {
    spaceId: SPACE,
    listId: LIST,
    ring: 'shared',
  });
  const claims = decodeJwt(jwt) as { status_list: { lst: string }; sub: string; ttl: number };
  return { jwt, unreadable, claims, list: decodeStatusList(claims.status_list.lst, 1) };
}

describe('a status list judged (commands/token/status-list.ts)', () => {
  it('given live, revoked and unknown-client entries: only the voided ones are INVALID', async () => {
    const { jwt, claims, list } = await given(
      [entry(7, 'live'), entry(9, 'gone'), entry(11, 'orphan', { client_id: 'ci_unknown' })],
      { revokedAmong: async (jtis) => new Set(jtis.filter((jti) => jti === 'gone')) },
    );
    expect(decodeProtectedHeader(jwt)).toMatchObject({ typ: 'statuslist+jwt', kid: 'k1' });
    expect(claims.sub).toBe(`https://tokens.test/spaces/${SPACE}/statuslists/${LIST}`);
    expect(claims.ttl).toBe(30);
    expect(list.size).toBe(1 << 16);
    expect([list.status(7), list.status(9), list.status(11), list.status(8)]).toEqual([0, 1, 1, 0]);
  });

  it('given an expired token: its entry stays as it stood (a verifier reads exp first)', async () => {
    const { list } = await given([entry(3, 'old', { expires_at: NOW / 1000 - 60 })]);
    expect(list.status(3)).toBe(0);
  });

  it('given an entry its schema refuses: that entry alone is INVALID, and counted', async () => {
    const { list, unreadable } = await given([entry(1, 'bad', { audience: 42 }), entry(2, 'ok')]);
    expect([list.status(1), list.status(2)]).toEqual([1, 0]);
    expect(unreadable).toBe(1);
  });

  it('given a shared-ring list of a space whose switch-over ended: every entry is INVALID', async () => {
    const ended = { switchOverEnded: async () => true };
    expect((await given([entry(5, 'shared-era')], ended, true)).list.status(5)).toBe(1);
    // A space still on the shared ring has no switch-over to end: its entries stand.
    expect((await given([entry(5, 'shared-era')], ended, false)).list.status(5)).toBe(0);
  });

  it('given entries behind the log past 5 s: 503, nothing judged', async () => {
    await expect(given([entry(1, 'x')], { lagSeconds: async () => 6 })).rejects.toMatchObject({
      code: 'unavailable',
    });
  });
});
