import { freePort } from '../src/net/free-port.js';
import { warmUp, type LoadPlan } from './load.js';
import type { createMeasurer, OursMeasured } from './measure.js';
import type { CpuGroups } from './cpu.js';
import { serviceGroups, startProcess, waitFor } from './processes.js';

/** What every twin run shares: the main service's settings, load and projector. */
export interface TwinOptions {
  readonly serviceEnv: Record<string, string>;
  readonly plan: LoadPlan;
  readonly measure: ReturnType<typeof createMeasurer>;
  readonly privateRequest: Record<string, unknown>;
  readonly projector: CpuGroups[string];
  readonly progress: (message: string) => void;
}

/**
 * The private-token endpoint on a service of its own, started with `env` over the main one's
 * settings, warmed and loaded as the main runs are, then stopped. Its events are projected by the
 * main service's projector, whose CPU counts here too. A service just started is slower for a
 * while than the main run's, so compare twins with each other, never with the main run.
 */
export async function measureTwin(
  options: TwinOptions,
  label: string,
  env: Record<string, string>,
): Promise<OursMeasured> {
  options.progress(`starting the service with ${label}`);
  const [port, metricsPort] = [await freePort(), await freePort()];
  const service = startProcess('src/cli/start.ts', {
    ...options.serviceEnv,
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    HOST: '127.0.0.1',
    RUN_PROJECTOR: 'false',
    ...env,
  });
  try {
    await waitFor(`http://127.0.0.1:${port}/healthz`);
    const request = {
      ...options.privateRequest,
      url: `http://127.0.0.1:${port}/v1/credential/token`,
    };
    await warmUp(options.plan, request);
    const twin = await serviceGroups(service.pid!);
    return await options.measure.ours(
      `ours, ${label}: POST /v1/credential/token (private)`,
      'private-token-issued',
      request,
      { ...twin.groups, projector: options.projector },
      `http://127.0.0.1:${metricsPort}`,
      twin.servers,
    );
  } finally {
    service.kill('SIGTERM');
  }
}
