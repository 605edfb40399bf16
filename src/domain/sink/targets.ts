import type { SinkTarget } from '../events.js';

/** Whether a sink carries a space's Shared Signals (pushed or polled) rather than its audit trail. */
export const isSignalStream = (target: SinkTarget): boolean =>
  target.kind === 'poll' || (target.kind === 'webhook' && target.format === 'secevent');

/** The signals a stream asked for (SSF `events_requested`); undefined: every one. */
export const signalsAsked = (target: SinkTarget) =>
  target.kind === 'syslog' ? undefined : target.events;

/** Whether its row keeps a secret: a webhook's signing secret, a stream's Bearer. */
export const keepsSecret = (target: SinkTarget): boolean => target.kind !== 'syslog';

/** Whether the deliverer sends to it: a polled stream waits to be asked. */
export const isPushed = (target: SinkTarget): target is Exclude<SinkTarget, { kind: 'poll' }> =>
  target.kind !== 'poll';

/** A webhook's target as recorded, and the path and query it leaves out (to be sealed). */
export interface RecordedTarget {
  readonly target: SinkTarget;
  readonly path?: string;
}

/** A target as recorded: a webhook's origin and a keyed digest of its path and query. */
export function recordedTarget(
  target: SinkTarget,
  digest: (text: string) => Buffer,
): RecordedTarget {
  if (target.kind !== 'webhook' || target.path_digest !== undefined) return { target };
  const url = new URL(target.url);
  const path = `${url.pathname}${url.search}`;
  return {
    target: {
      ...target,
      url: `${url.origin}/`,
      path_digest: `hmac-sha256:${digest(path).toString('hex')}`,
    },
    path,
  };
}

/** A webhook's URL: origin and opened path joined as text (so `//` stays a path). */
export function deliveryUrl(target: SinkTarget, path: string | undefined): string | undefined {
  if (target.kind !== 'webhook') return undefined;
  if (target.path_digest === undefined) return target.url;
  return path === undefined ? undefined : `${target.url.replace(/\/$/, '')}${path}`;
}
