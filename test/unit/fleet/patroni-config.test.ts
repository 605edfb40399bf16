import { describe, expect, it } from 'vitest';
import { patroniConfig } from '../../../src/fleet/configs.js';

const config = (strict: boolean) =>
  patroniConfig({
    scope: 'token-authority',
    node: {
      name: 'pg0',
      port: 5432,
      restPort: 8008,
      dataDir: '/tmp/fleet/pg0/data',
      patroniPid: 0,
      host: '10.200.0.10',
    },
    etcdHosts: ['10.200.0.20:2379'],
    clients: '10.200.0.0/24',
    passwords: { superuser: 's', replication: 'r', rewind: 'w' },
    strict,
  });

/** The lines of a top-level YAML section, indented as they are. */
const section = (yaml: string, name: string) => {
  const lines = yaml.split('\n');
  const start = lines.indexOf(`${name}:`);
  const end = lines.findIndex((line, i) => i > start && /^\S/.test(line));
  return lines.slice(start + 1, end === -1 ? undefined : end);
};

describe("the fleet's Patroni configuration", () => {
  it('rebuilds a former leader from the leader when its rewind fails or its timeline diverged (the partition drill left one down otherwise)', () => {
    // Patroni reads these from the node's own postgresql section, not from the DCS.
    const local = section(config(true), 'postgresql');
    expect(local).toContain('  remove_data_directory_on_rewind_failure: true');
    expect(local).toContain('  remove_data_directory_on_diverged_timelines: true');
  });

  it('keeps synchronous replication, strict only when asked', () => {
    expect(config(true)).toMatch(/synchronous_mode: true\n\s+synchronous_mode_strict: true/);
    expect(config(false)).toMatch(/synchronous_mode: true\n\s+synchronous_mode_strict: false/);
  });
});
