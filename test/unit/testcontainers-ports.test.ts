import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PublishedContainer,
  publishAddress,
} from '../../packages/testcontainers/src/published-ports.js';

/** Reads what the container would be created with, without an engine. */
class Probe extends PublishedContainer {
  async bindings() {
    await this.beforeContainerCreated();
    return this.hostConfig.PortBindings as Record<string, Array<{ HostIp?: string }>>;
  }
}

describe('token-authority-testcontainers publishes on one address, never every interface (issue 40)', () => {
  it('loopback for a local engine, the bridge address beside it, the default only for a remote engine', () => {
    expect(publishAddress('localhost')).toBe('127.0.0.1');
    expect(publishAddress('127.0.0.1')).toBe('127.0.0.1');
    expect(publishAddress('10.88.0.1', ['127.0.0.1', '10.88.0.1'])).toBe('10.88.0.1');
    expect(publishAddress('203.0.113.7', ['127.0.0.1'])).toBeUndefined();
    expect(publishAddress('docker.example', ['127.0.0.1'])).toBeUndefined();
  });

  it('every published port carries the host address, fixed and random ones alike', async () => {
    const probe = new Probe('postgres:17-alpine')
      .withExposedPorts(5432, { container: 8080, host: 41_873 })
      .publishedOn('127.0.0.1');
    expect(await probe.bindings()).toEqual({
      '5432/tcp': [{ HostPort: '0', HostIp: '127.0.0.1' }],
      '8080/tcp': [{ HostPort: '41873', HostIp: '127.0.0.1' }],
    });
  });

  it('the module starts both of its containers through it', () => {
    const source = readFileSync('packages/testcontainers/src/index.ts', 'utf8');
    expect(source).not.toMatch(/new GenericContainer\(/);
    expect(source.match(/new PublishedContainer\([^)]*\)\s*\.publishedOn\(hostIp\)/g)).toHaveLength(
      2,
    );
  });
});

describe('token-authority-testcontainers is a package of its own (issue 40, item 12)', () => {
  const own = JSON.parse(readFileSync('packages/testcontainers/package.json', 'utf8')) as {
    dependencies?: Record<string, string>;
    peerDependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const root = JSON.parse(readFileSync('package.json', 'utf8')) as {
    exports: Record<string, unknown>;
    devDependencies: Record<string, string>;
    peerDependencies?: Record<string, string>;
  };

  it('depends on testcontainers alone, pinned to the version CI installs and tests', () => {
    // A peer (npm installs it for the user): as a dependency of a workspace it would be in the
    // service's production install, and so in its image.
    expect(own.dependencies).toBeUndefined();
    expect(Object.keys(own.peerDependencies)).toEqual(['testcontainers']);
    // 12.0.2 and later take undici 8 (Node 22.19+): a range would break on Node 20.
    expect(own.peerDependencies.testcontainers).toBe('12.0.1');
    expect(own.devDependencies.testcontainers).toBe('12.0.1');
    expect(root.devDependencies.testcontainers).toBe(own.peerDependencies.testcontainers);
  });

  it('the server package no longer offers it (its users would install the whole server)', () => {
    expect(Object.keys(root.exports)).not.toContain('./testcontainers');
    expect(root.peerDependencies?.testcontainers).toBeUndefined();
  });

  it('imports nothing but testcontainers and its own files', () => {
    for (const file of ['index.ts', 'published-ports.ts']) {
      const source = readFileSync(`packages/testcontainers/src/${file}`, 'utf8');
      const specifiers = [...source.matchAll(/from '([^']+)'/g)].map(([, name]) => name!);
      expect(
        specifiers.filter((name) => !/^(node:|\.\/|testcontainers$)/.test(name)),
        file,
      ).toEqual([]);
    }
  });
});
