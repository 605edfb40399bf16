import type { RecordedEvent } from '../event-store/types.js';

/** One batch of a sink's delivery: consecutive events of its log, in log order. */
export interface DeliveryBatch {
  readonly sinkId: string;
  readonly events: readonly RecordedEvent[];
}

/**
 * How a batch reaches a sink. `send` resolves only once the sink acknowledged the whole batch
 * (a webhook: a 2xx; syslog: written, flushed, the connection still healthy) and throws
 * otherwise, within its own timeout: the cursor moves only after it resolved.
 */
export interface Transport {
  send(batch: DeliveryBatch): Promise<void>;
  /** A cheap check that the sink answers again (a paused sink's probe). */
  probe(): Promise<void>;
  close(): void;
}

/** A failed delivery: what the sink answered, kept as the sink's last error (never a secret). */
export class DeliveryError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'DeliveryError';
  }
}
