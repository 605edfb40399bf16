import { describe, expect, it, vi } from 'vitest';
import { InvalidTokenError } from '../../src/errors/errors.js';
import { watchAuthority, type FeedEnd } from '../../src/http/audit-feed.js';
import type { LoginIdentity } from '../../src/crypto/login-tokens.js';

/** A feed's authority, watched with a login verifier whose answers the test sets. */
function watched(answer: () => Promise<LoginIdentity>, expiresInSeconds = 3600) {
  const ended: FeedEnd[] = [];
  const verify = vi.fn(answer);
  const stop = watchAuthority(
    { end: (reason) => void ended.push(reason) },
    {
      token: 't',
      spaceId: 'space-a',
      policy: 'space-read',
      expiresAt: Math.floor(Date.now() / 1000) + expiresInSeconds,
      everyMs: 60_000,
      login: { verify },
      logger: { warn: () => undefined },
    },
  );
  return { ended, verify, stop };
}

const identity = (spaces: string[]): LoginIdentity => ({
  subject: 'carol',
  issuer: 'idp',
  spaces,
  role: 'auditor',
  expiresAt: Math.floor(Date.now() / 1000) + 3600,
});

describe('an open feed keeps only the authority its login token still has', () => {
  it('is verified again every minute; a token that stops verifying ends it as withdrawn', async () => {
    vi.useFakeTimers();
    try {
      let valid = true;
      const { ended, verify, stop } = watched(async () => {
        if (!valid) throw new InvalidTokenError('login token rejected: key retired');
        return identity(['space-a']);
      });
      await vi.advanceTimersByTimeAsync(60_000);
      expect(verify).toHaveBeenCalledTimes(1);
      expect(ended).toEqual([]);
      valid = false;
      await vi.advanceTimersByTimeAsync(60_000);
      expect(ended).toEqual(['authorization_withdrawn']);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a token that no longer lists the space ends it as withdrawn', async () => {
    vi.useFakeTimers();
    try {
      const { ended, stop } = watched(async () => identity(['space-b']));
      await vi.advanceTimersByTimeAsync(60_000);
      expect(ended).toEqual(['authorization_withdrawn']);
      stop();
    } finally {
      vi.useRealTimers();
    }
  });

  it("ends at the token's exp, before any re-verification is due", async () => {
    vi.useFakeTimers();
    try {
      const { ended, verify, stop } = watched(async () => identity(['space-a']), 5);
      await vi.advanceTimersByTimeAsync(5_000);
      expect(ended).toEqual(['login_token_expired']);
      expect(verify).not.toHaveBeenCalled();
      stop();
    } finally {
      vi.useRealTimers();
    }
  });
});
