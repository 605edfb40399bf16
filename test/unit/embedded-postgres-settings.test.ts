import { describe, expect, it } from 'vitest';
import { serviceSettings } from '../../src/db/embedded-postgres.js';

const GiB = 2 ** 30;

describe("the embedded Postgres's settings (issue 68)", () => {
  it('gives a quarter of the memory to buffers, 128 MB to 1 GB', () => {
    expect(serviceSettings(24 * GiB).shared_buffers).toBe('1024MB');
    expect(serviceSettings(2 * GiB).shared_buffers).toBe('512MB');
    expect(serviceSettings(GiB / 4).shared_buffers).toBe('128MB');
  });

  it('spaces checkpoints by 2 GB of WAL', () => {
    expect(serviceSettings(GiB).max_wal_size).toBe('2GB');
  });
});
