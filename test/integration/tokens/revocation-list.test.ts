import { describe, expect, it } from 'vitest';
import {
  createCredentialVia,
  privateTokenVia,
  startTestService,
} from '../../support/test-service.js';
import { waitUntil } from '../../support/wait.js';

const SPACE = 'space-revocation-list';

describe('GET /v1/revocations', () => {
  it('answers 304 to the ETag of an unchanged list, and a new ETag once something is revoked', async () => {
    const service = await startTestService();
    const credential = await createCredentialVia(service, SPACE);
    const token = await privateTokenVia(service, credential);
    const list = (etag?: string) =>
      fetch(`${service.baseUrl}/v1/revocations?space_id=${SPACE}`, {
        headers: etag ? { 'if-none-match': etag } : {},
      });
    const first = await list();
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(((await first.json()) as { tokens: unknown[] }).tokens).toEqual([]);

    const unchanged = await list(etag);
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    // Rebuilt after the cache second, the same content keeps the same ETag.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await list(etag)).status).toBe(304);

    const revoked = await fetch(`${service.baseUrl}/v1/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...credential, token }).toString(),
    });
    expect(revoked.status).toBe(200);
    const changed = await waitUntil(
      () => list(etag),
      (response) => response.status === 200,
      { timeoutMs: 5000, intervalMs: 200 },
    );
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as { tokens: unknown[] }).tokens).toHaveLength(1);
  });
});
