/**
 * How a stream is written is said by whoever names it (a service's one registry of stream
 * names), not by each caller of an append. The kind is kept under a symbol only this module
 * holds: a ref built by hand carries none, and the stores refuse it.
 */
const KIND: unique symbol = Symbol('how the stream is written');

/** A stream to append to, as a registry made it ({@link newStream} or {@link keyedStream}). */
export interface StreamRef {
  readonly streamId: string;
  readonly [KIND]: 'new' | 'keyed';
}

/**
 * Named by a fresh random id (a jti, an event id): no other caller can name it, so it must not
 * exist, and with nothing inline it is not checked under its lock, only refused by the INSERT
 * when it is there (a retry, or a reuse): the one kind a group commit takes.
 */
export interface NewStream extends StreamRef {
  readonly [KIND]: 'new';
}

/**
 * Named by a key two callers may share (a client id, a space): every append is checked under the
 * stream's lock at the version it expects (none: the stream must not exist).
 */
export interface KeyedStream extends StreamRef {
  readonly [KIND]: 'keyed';
}

// The kind lives on a shared prototype, not on the ref: a spread, a JSON copy or a structured clone
// of a ref carries its id but not its kind, so a copy edited into another name is refused.
const NEW = Object.freeze({ [KIND]: 'new' as const });
const KEYED = Object.freeze({ [KIND]: 'keyed' as const });

const made = <Ref extends StreamRef>(kind: object, streamId: string): Ref => {
  const ref = Object.create(kind) as { streamId: string };
  ref.streamId = streamId;
  return Object.freeze(ref) as unknown as Ref;
};

export const newStream = (streamId: string): NewStream => made(NEW, streamId);

export const keyedStream = (streamId: string): KeyedStream => made(KEYED, streamId);

/** Whether an append may skip the lock: one property read, as the hot path can afford. */
export const isNewStream = (ref: StreamRef): boolean => ref?.[KIND] === 'new';

/** The stream's id, refused when no constructor here made the ref (its kind would be a guess). */
export function madeStreamId(ref: StreamRef): string {
  const kind = (ref as Partial<StreamRef> | undefined)?.[KIND];
  if (kind === 'new' || kind === 'keyed') return ref.streamId;
  throw new TypeError(
    `append to ${JSON.stringify(ref?.streamId)}: its stream ref was not made by newStream or keyedStream (the stream registry), so how it is written is unknown`,
  );
}
