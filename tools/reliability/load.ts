import { decodeJwt } from 'jose';

/** A client the load driver issues tokens for. */
export interface LoadClient {
  readonly spaceId: string;
  readonly clientId: string;
  readonly clientSecret: string;
}

/** What the load saw. */
export interface LoadReport {
  readonly requests: number;
  /** Responses by status; 0 counts connection errors (a killed API). */
  readonly byStatus: Readonly<Record<number, number>>;
  /** jti of every token a client received (a 200 with a token). */
  readonly receivedJtis: readonly string[];
  /** 503 answers without a Retry-After header (must be 0). */
  readonly unavailableWithoutRetryAfter: number;
  /**
   * Requests the client gave up on at its 15 s timeout, the request deadline's threefold: hangs.
   * Status 0 counts these and connection errors alike; this counts only these.
   */
  readonly unanswered: number;
  /** Slowest answer of any kind, and slowest 503, in milliseconds (for reports, not verdicts). */
  readonly maxLatencyMs: number;
  readonly max503LatencyMs: number;
  /** Statuses of 500 and above other than 503 (must be empty). */
  readonly serverErrors: readonly string[];
}

/** A running load. */
export interface RunningLoad {
  /** 200s so far (for waiting until issuance works again). */
  okCount(): number;
  /** Time of the last 200, ms since the epoch (0 before the first). */
  lastOkAt(): number;
  stop(): Promise<LoadReport>;
}

const AUDIENCE = 'storefront.api.local';

/**
 * `concurrency` loops, each issuing a private token and then public tokens with it, until
 * stopped; every request has a 15 s client-side timeout so a hang shows as a failure, not a wait.
 */
export function startLoad(
  apiUrl: string,
  clients: readonly LoadClient[],
  concurrency: number,
): RunningLoad {
  let stopping = false;
  let requests = 0;
  let ok = 0;
  let lastOk = 0;
  let unavailableWithoutRetryAfter = 0;
  let unanswered = 0;
  let maxLatencyMs = 0;
  let max503LatencyMs = 0;
  const byStatus: Record<number, number> = {};
  const receivedJtis: string[] = [];
  const serverErrors: string[] = [];

  const send = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const started = Date.now();
    requests += 1;
    let status = 0;
    let payload: Record<string, unknown> | undefined;
    try {
      const response = await fetch(`${apiUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(15_000),
      });
      status = response.status;
      payload = (await response.json().catch(() => undefined)) as typeof payload;
      if (status === 503 && !response.headers.get('retry-after')) unavailableWithoutRetryAfter += 1;
    } catch (error) {
      status = 0;
      if (error instanceof Error && error.name === 'TimeoutError') unanswered += 1;
    }
    const latency = Date.now() - started;
    maxLatencyMs = Math.max(maxLatencyMs, latency);
    if (status === 503) max503LatencyMs = Math.max(max503LatencyMs, latency);
    if (status >= 500 && status !== 503) serverErrors.push(`${status} ${path}`);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const token = (payload?.access_token ?? payload?.token) as string | undefined;
    if (status === 200 && token) {
      ok += 1;
      lastOk = Date.now();
      receivedJtis.push(decodeJwt(token).jti!);
    }
    return status === 200 ? token : undefined;
  };

  const loop = async (index: number) => {
    const client = clients[index % clients.length]!;
    while (!stopping) {
      const privateToken = await send('/v1/credential/token', {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        audience: AUDIENCE,
        grant_type: 'client_credentials',
      });
      if (!privateToken) {
        await new Promise((resolve) => setTimeout(resolve, 50)); // as a client honouring 503 would
        continue;
      }
      for (let i = 0; i < 3 && !stopping; i++) {
        await send(
          '/v1/issue',
          { customer_id: `customer-${index}-${i}`, segment_id: `segment-${i}` },
          { authorization: `Bearer ${privateToken}`, 'x-service-space-id': client.spaceId },
        );
      }
    }
  };
  const loops = Array.from({ length: concurrency }, (_, index) => loop(index));

  return {
    okCount: () => ok,
    lastOkAt: () => lastOk,
    async stop() {
      stopping = true;
      await Promise.all(loops);
      return {
        requests,
        byStatus,
        receivedJtis,
        unavailableWithoutRetryAfter,
        unanswered,
        maxLatencyMs,
        max503LatencyMs,
        serverErrors,
      };
    },
  };
}

/** Creates `count` credentials in `spaceId` through the API. */
export async function createClients(
  apiUrl: string,
  loginToken: string,
  spaceId: string,
  count: number,
): Promise<LoadClient[]> {
  const clients: LoadClient[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${apiUrl}/v1/credential`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${loginToken}`,
        'x-service-space-id': spaceId,
      },
      body: JSON.stringify({ name: `load client ${i}`, description: 'reliability run' }),
    });
    if (response.status !== 201) {
      throw new Error(`credential creation failed: ${response.status} ${await response.text()}`);
    }
    const body = (await response.json()) as { client_id: string; client_secret: string };
    clients.push({ spaceId, clientId: body.client_id, clientSecret: body.client_secret });
  }
  return clients;
}
