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
