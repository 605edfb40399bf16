import { afterFile } from './after-file.js';
import { startOtlpReceiver, type OtlpReceiver } from './otlp-receiver.js';
import { startTestService, type TestService } from './test-service.js';

/** The API sending its traces to an OTLP receiver of the test file's own (closed after it). */
export async function startTracedService(
  env: Record<string, string> = {},
): Promise<{ readonly receiver: OtlpReceiver; readonly service: TestService }> {
  const receiver = await startOtlpReceiver();
  afterFile(() => receiver.close());
  const service = await startTestService({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    ...env,
  });
  return { receiver, service };
}
