import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { revokedClientListedSeconds } from '../../src/cli/rotation-settings.js';

// A replica caching a revoked credential as active mints as it for up to CREDENTIAL_CACHE_TTL_MS
// after revoked_at: the list keeps the client for the longest token lifetime plus that.
describe('how long the revocation list keeps a revoked client', () => {
  it('the longest token lifetime plus the credential cache TTL, rounded up to a second', () => {
    expect(revokedClientListedSeconds(loadConfig({ CREDENTIAL_CACHE_TTL_MS: '60000' }))).toBe(
      3600 + 60,
    );
    const config = loadConfig({
      PUBLIC_TOKEN_TTL_SECONDS: '7200',
      CREDENTIAL_CACHE_TTL_MS: '1500',
    });
    expect(revokedClientListedSeconds(config)).toBe(Math.max(7200, 3600) + 2);
  });
});
