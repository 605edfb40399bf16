import { afterEach, describe, expect, it } from 'vitest';
import { createGuardedFetcher } from '#outbound/guarded-fetcher.js';
import { createIssuerKeys } from '../../../src/commands/trusted-issuer/issuer-keys.js';
import { createMetadataDocuments } from '../../../src/commands/trusted-issuer/metadata-document.js';
import type { TrustedIssuerState } from '../../../src/domain/trusted-issuer/decide.js';
import {
  slowDrip,
  until,
  type SlowDrip,
} from '../../../packages/outbound/test/slow-drip-server.js';

// A peer answering a byte a second held a JWKS or metadata-document fetch until its byte cap
// (hours): the guarded GET's only bound was the socket's idle timeout.
const fetcher = () =>
  createGuardedFetcher({
    rules: { production: false, allowHttpHosts: [], ownPorts: [] },
    timeoutMs: 60_000,
    maxInFlight: 10,
    maxInFlightPerScope: 10,
  });
const peers: SlowDrip[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((drip) => drip.close()));
});

describe('the service’s outbound fetches from a peer answering a byte a second', () => {
  it("a trusted issuer's JWKS ends at its deadline, the connection closed, and says so", async () => {
    const drip = await slowDrip();
    peers.push(drip);
    const keys = createIssuerKeys({
      fetcher: fetcher(),
      timeoutMs: 1000,
      maxEntries: 10,
      now: Date.now,
    });
    const issuer: TrustedIssuerState = {
      issuerId: 'tis_slow',
      spaceId: 'space-a',
      removed: false,
      definition: { iss: 'https://slow.example', jwks_uri: drip.url(), audience: 'a', rules: [] },
    };
    const why = await keys.keysOf(issuer, { refresh: true }).then(
      () => 'held',
      (error: Error) => error.message,
    );
    expect(why).toBe('jwks_uri: timed out');
    await until(() => drip.open() === 0);
  });

  it('a client metadata document ends at its deadline (a TLS handshake a byte at a time)', async () => {
    const drip = await slowDrip({ tls: true });
    peers.push(drip);
    const documents = createMetadataDocuments({
      fetcher: fetcher(),
      timeoutMs: 1000,
      maxEntries: 10,
      maxAgeSeconds: 60,
      now: Date.now,
    });
    const why = await documents.clientAt(drip.url('/client'), { spaceId: 'space-a' }).then(
      () => 'fetched',
      (error: Error) => error.message,
    );
    expect(why).toBe('timed out');
    await until(() => drip.open() === 0);
  });
});
