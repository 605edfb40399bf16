import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { leavingEvent } from '../../../src/delivery/transports.js';
import { storedForm } from '../../../src/domain/stored-form.js';
import { tokenStreamId } from '../../../src/domain/streams.js';
import type { RecordedEvent } from '#event-log/types.js';
import { exampleEvents } from '../../support/example-events.js';

const EXAMPLES = exampleEvents('ci_1');

/** An example event of `type` as the log records it: in its stored form, on `streamId`. */
const recorded = (type: 'credential-created' | 'private-token-issued', streamId: string) => {
  const body = { type, data: EXAMPLES[type], metadata: { actor: 'user:alice' } };
  const stored = storedForm(body as never, streamId) as { data: unknown; metadata: object };
  return {
    globalPosition: 7,
    transactionId: '900',
    spaceId: 'space-a',
    streamId,
    streamPosition: 1,
    eventId: '00000000-0000-4000-8000-000000000007',
    type,
    schemaVersion: 1,
    data: stored.data,
    metadata: stored.metadata,
    recordedAt: new Date('2026-11-27T12:00:00Z'),
  } as RecordedEvent;
};

// The outbound package sends what it is given: what may leave is decided here, for every sink.
describe('an event leaving for a sink', () => {
  it('is redacted as the exports redact it: a secret hash becomes its digest', () => {
    const event = recorded('credential-created', 'credential-ci_1');
    const hash = (event.data as { secret_hash: string }).secret_hash;
    const digest = createHash('sha256').update(hash).digest('hex');
    expect(leavingEvent(event).data).toMatchObject({ secret_hash: `sha256:${digest}` });
  });

  it('is in its full form: what the stored form left out is put back', () => {
    const { jti } = EXAMPLES['private-token-issued'];
    const event = recorded('private-token-issued', tokenStreamId(jti));
    expect(event.data).not.toHaveProperty('jti');
    expect(leavingEvent(event).data).toMatchObject({ jti });
  });
});
