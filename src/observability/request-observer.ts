/** Called once per finished request; the metrics module plugs in here. */
export type RequestObserver = (info: {
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly seconds: number;
  /** Which budget refused it, for a 429. */
  readonly rateLimitPolicy?: string;
}) => void;
