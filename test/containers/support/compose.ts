import { spawn } from 'node:child_process';
import { getContainerRuntimeClient } from 'testcontainers';

/**
 * A compose project driven as users drive it: the compose tool CI has (COMPOSE_TOOL, default
 * Debian's `docker-compose` 1.29, speaking to DOCKER_HOST), and the engine's Docker API for what
 * a check reads (health, exit codes, environment, mounts), so nothing here is podman's alone.
 */
export class ComposeProject {
  readonly tool = (process.env.COMPOSE_TOOL ?? 'docker-compose').split(' ');

  constructor(
    readonly name: string,
    readonly files: readonly string[],
    readonly env: Readonly<Record<string, string>> = {},
  ) {}

  /** Runs the tool with `args`; rejects with its output when it exits non-zero. */
  async run(args: readonly string[], timeoutMs = 300_000): Promise<string> {
    const [command, ...prefix] = this.tool as [string, ...string[]];
    const files = this.files.flatMap((file) => ['-f', file]);
    return runCommand(command, [...prefix, '-p', this.name, ...files, ...args], {
      env: this.env,
      timeoutMs,
    });
  }

  /** The id of the service's (first) container, also when it has exited. */
  async containerId(service: string): Promise<string> {
    const [found] = await this.containers(`com.docker.compose.service=${service}`);
    if (!found) throw new Error(`${this.name}: no container for ${service}`);
    return found.Id;
  }

  /** The project's containers, running or not, with a label besides the project's if given. */
  private async containers(label?: string) {
    const client = await getContainerRuntimeClient();
    const labels = [`com.docker.compose.project=${this.name}`, ...(label ? [label] : [])];
    return client.container.dockerode.listContainers({ all: true, filters: { label: labels } });
  }

  async inspect(service: string) {
    const client = await getContainerRuntimeClient();
    return client.container.getById(await this.containerId(service)).inspect();
  }

  /**
   * Waits until the service's health check passes; rejects, with its last checks and logs, when
   * it turns unhealthy or `timeoutMs` passes: a service that never turns healthy fails here.
   */
  async waitHealthy(service: string, timeoutMs: number): Promise<number> {
    const started = Date.now();
    for (;;) {
      const state = (await this.inspect(service)).State;
      const status = state.Health?.Status;
      if (status === 'healthy') return Date.now() - started;
      if (status === 'unhealthy' || !state.Running || Date.now() - started > timeoutMs) {
        const logs = await this.run(['logs', '--tail', '20', service]).catch(String);
        const checks = (state.Health?.Log ?? []).map((entry) => entry.Output.trim()).join(' | ');
        throw new Error(
          `${service} did not turn healthy (${status ?? 'no health check'}, running: ${state.Running}, ${Date.now() - started} ms); checks: ${checks}\n${logs}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  /** The project's containers, volumes and networks still present (after `down -v`: none). */
  async leftovers(): Promise<string[]> {
    const client = await getContainerRuntimeClient();
    const label = `com.docker.compose.project=${this.name}`;
    const containers = await this.containers();
    const volumes = await client.container.dockerode.listVolumes({
      filters: { label: [label] },
    });
    const networks = await client.container.dockerode.listNetworks({
      filters: { label: [label] },
    });
    return [
      ...containers.map((container) => `container ${container.Names.join(',')}`),
      ...(volumes.Volumes ?? []).map((volume) => `volume ${volume.Name}`),
      ...networks.map((network) => `network ${network.Name}`),
    ];
  }
}

/** Runs a command to its end; resolves with stdout, rejects with both streams on failure. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { env?: Readonly<Record<string, string>>; timeoutMs?: number; cwd?: string } = {},
): Promise<string> {
  // Not this run's vitest settings: a nested vitest (the consumer project) must start afresh.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(VITEST|NODE_OPTIONS$)/.test(name)),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      env: { ...inherited, ...options.env },
      cwd: options.cwd,
      timeout: options.timeoutMs ?? 300_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve(stdout);
      else
        reject(
          new Error(
            `${command} ${args.join(' ')}: exit ${code ?? signal}\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`,
          ),
        );
    });
  });
}
