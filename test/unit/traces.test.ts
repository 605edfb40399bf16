import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { traceDestination } from '../../src/cli/traces.js';
import { traceSourceRule } from '../../src/http/server-span.js';
import { decidedInSpan, hashedId, inSpan, tracingOn } from '../../src/observability/tracing.js';

describe('traces: settings', () => {
  it('are off by default, and on by an endpoint or the console exporter', () => {
    expect(traceDestination(loadConfig({}))).toBeUndefined();
    expect(
      traceDestination(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })),
    ).toEqual({ url: 'http://collector:4318/v1/traces' });
    expect(
      traceDestination(
        loadConfig({
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        }),
      ),
    ).toEqual({ url: 'https://traces.example/otlp' });
    expect(traceDestination(loadConfig({ OTEL_TRACES_EXPORTER: 'console' }))).toBe('console');
    expect(
      traceDestination(
        loadConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
      ),
    ).toBeUndefined();
  });

  it('refuse a trusted source that means everyone, a sampler ratio out of range, a non-HTTP endpoint', () => {
    for (const env of [
      { OTEL_TRUSTED_TRACE_SOURCES: '0.0.0.0/0' },
      { OTEL_TRUSTED_TRACE_SOURCES: 'gateway.internal' },
      { OTEL_TRACES_SAMPLER_ARG: '1.5' },
      { OTEL_TRACES_SAMPLER: 'sometimes' },
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' },
    ]) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
    }
  });
});

describe('traces: whose traceparent is continued', () => {
  it('none by default; otherwise the connection address in a listed block, IPv4-mapped included', () => {
    expect(traceSourceRule()('127.0.0.1')).toBe(false);
    const trusted = traceSourceRule(['10.0.0.0/8', 'fd12::/48', '192.0.2.7']);
    expect(trusted('10.1.2.3')).toBe(true);
    expect(trusted('::ffff:10.1.2.3')).toBe(true);
    expect(trusted('fd12::5')).toBe(true);
    expect(trusted('192.0.2.7')).toBe(true);
    expect(trusted('192.0.2.8')).toBe(false);
    expect(trusted('11.0.0.1')).toBe(false);
    expect(trusted(undefined)).toBe(false);
  });
});

describe('traces: off', () => {
  it('runs the work directly, with no span', async () => {
    expect(tracingOn()).toBe(false);
    const attributes = () => {
      throw new Error('attributes built with tracing off');
    };
    expect(decidedInSpan(attributes, () => ({ ok: true }))).toEqual({ ok: true });
    expect(await inSpan('append', {}, async (span) => span)).toBeUndefined();
  });

  it('hashes an id to 128 bits of hex that do not contain it', () => {
    const hashed = hashedId('customer-42');
    expect(hashed).toMatch(/^[0-9a-f]{32}$/);
    expect(hashed).toBe(hashedId('customer-42'));
    expect(hashed).not.toBe(hashedId('customer-43'));
  });
});
