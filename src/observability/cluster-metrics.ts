import cluster from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { AggregatorRegistry, type Registry } from 'prom-client';

const REQUEST = 'token-authority/metrics-request';
const RESPONSE = 'token-authority/metrics-response';

type MetricsRequest = { readonly kind: typeof REQUEST; readonly id: string };
type MetricsResponse = { readonly kind: typeof RESPONSE; readonly id: string } & Answer;
type Answer = { readonly text?: string; readonly error?: string };

/**
 * The metrics text /metrics serves. In an API worker of `npm start` (API_WORKERS > 1) a scrape
 * reaches one worker at random, so the worker asks the primary for every worker's metrics,
 * aggregated (counters summed, lag gauges at their max, database_up at its min); alone, it is
 * this process's registry.
 */
export function metricsText(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker || !process.send) return () => registry.metrics();
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry(); // answers the primary's requests for our metrics
  const waiting = new Map<string, (response: MetricsResponse) => void>();
  process.on('message', (message: MetricsResponse) => {
    if (message?.kind === RESPONSE) waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = randomUUID();
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error('the primary did not answer with metrics'));
      }, 5000);
      waiting.set(id, (response) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (response.text === undefined) reject(new Error(response.error ?? 'no metrics'));
        else resolve(response.text);
      });
      process.send!({ kind: REQUEST, id } satisfies MetricsRequest);
    });
}

/** In the primary of `npm start`: answers workers' requests with every worker's metrics. */
export function aggregateWorkerMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, message: MetricsRequest) => {
    if (message?.kind !== REQUEST) return;
    const answer = (response: Answer) =>
      worker.send({ kind: RESPONSE, id: message.id, ...response } satisfies MetricsResponse);
    aggregator.clusterMetrics().then(
      (text) => answer({ text }),
      (error: Error) => answer({ error: error.message }),
    );
  });
}
