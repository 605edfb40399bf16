import { describe, expect, it } from 'vitest';
import { parseRecorded } from '../../../src/domain/events.js';
import { tokenStreamId } from '../../../src/domain/streams.js';
import { fullForm, requestIdOf, storedForm } from '../../../src/domain/stored-form.js';
import { exampleEvents } from '../../support/example-events.js';

const CLIENT = 'ci_1';
const examples = exampleEvents(CLIENT);
const REQUEST = '019a0000-0000-7000-8000-000000000001';

/** A public-token-issued as an HTTP request records it: its event id is its request's id. */
const issuance = () => {
  // Whole seconds, as the JWT's iat and exp make them.
  const data = {
    ...examples['public-token-issued'],
    issued_at: '2026-11-23T10:00:00.000Z',
    expires_at: '2026-11-23T10:15:00.000Z',
  };
  return {
    streamId: tokenStreamId(data.jti),
    event: {
      eventId: REQUEST,
      type: 'public-token-issued',
      data,
      metadata: {
        actor: `client:${CLIENT}`,
        request_id: REQUEST,
        client_ip: '192.0.2.1',
        user_agent: null,
      },
    },
  };
};

const recorded = <Event extends object>(event: Event, streamId: string) => ({
  ...event,
  streamId,
  spaceId: 'space-a',
  streamPosition: 1,
  recordedAt: new Date(),
});

describe('stored form: what the log keeps of an event', () => {
  it('given a token issuance, then its jti, actor, request id and null user agent are not stored, its times are seconds', () => {
    const { event, streamId } = issuance();
    const stored = storedForm(event, streamId);
    const { jti: _jti, ...dataWithoutJti } = event.data;
    expect(stored.data).toEqual({
      ...dataWithoutJti,
      issued_at: Date.parse('2026-11-23T10:00:00Z') / 1000,
      expires_at: Date.parse('2026-11-23T10:15:00Z') / 1000,
    });
    expect(stored.metadata).toEqual({ client_ip: '192.0.2.1' });
  });

  it('given the stored issuance, then the full form is the event as decided, and so is what the domain parses', () => {
    const { event, streamId } = issuance();
    const stored = storedForm(event, streamId);
    expect(fullForm({ ...stored, streamId })).toEqual({ ...event, streamId });
    expect(parseRecorded(recorded(stored, streamId))).toMatchObject({
      type: 'public-token-issued',
      data: event.data,
    });
  });

  it('given an event stored whole (before the rule), then its full form is itself', () => {
    const { event, streamId } = issuance();
    const whole = { ...event, streamId };
    expect(fullForm(whole)).toBe(whole);
  });

  it('given values that are not what the envelope says, then every one is stored', () => {
    const { event } = issuance();
    const unlike = {
      ...event,
      // Milliseconds would be lost as seconds: kept as written.
      data: {
        ...event.data,
        issued_at: '2026-11-23T10:00:00.123Z',
        // Shaped like a time of whole seconds, but none: kept as written, never a RangeError.
        expires_at: '2026-13-45T99:99:99.000Z',
      },
      metadata: {
        actor: 'user:alice',
        request_id: 'another-request',
        client_ip: '192.0.2.1',
        user_agent: 'curl/8',
      },
    };
    // Another stream than token-<jti>: the id is not derivable from it.
    const stored = storedForm(unlike, 'token-something-else');
    expect(stored).toEqual(unlike);
    expect(fullForm({ ...stored, streamId: 'token-something-else' })).toEqual({
      ...unlike,
      streamId: 'token-something-else',
    });
  });

  it('given another type of event, then its data and actor stay, and only request id and null user agent go', () => {
    const revoked = {
      eventId: REQUEST,
      type: 'token-revoked',
      data: examples['token-revoked'],
      metadata: {
        actor: `client:${CLIENT}`,
        request_id: REQUEST,
        client_ip: '192.0.2.1',
        user_agent: null,
      },
    };
    const streamId = tokenStreamId(revoked.data.jti);
    const stored = storedForm(revoked, streamId);
    expect(stored.data).toEqual(revoked.data);
    expect(stored.metadata).toEqual({ actor: `client:${CLIENT}`, client_ip: '192.0.2.1' });
    expect(fullForm({ ...stored, streamId })).toEqual({ ...revoked, streamId });
  });

  it('given metadata that is not a request’s (no client IP), then nothing is thinned or added', () => {
    const bare = { eventId: REQUEST, type: 'test-event', data: {}, metadata: { actor: 'test' } };
    expect(storedForm(bare, 'test-stream')).toEqual(bare);
    expect(fullForm({ ...bare, streamId: 'test-stream' })).toEqual({
      ...bare,
      streamId: 'test-stream',
    });
  });
});

describe('the request an event names (its deadline is found by it)', () => {
  it('given an issuance, stored or in full, then it is the request the issuance answered', () => {
    const { event, streamId } = issuance();
    expect(requestIdOf(event)).toBe(REQUEST);
    expect(requestIdOf(storedForm(event, streamId))).toBe(REQUEST);
  });

  it('given an event whose request id differs from its event id, then it is that request id', () => {
    const { event, streamId } = issuance();
    const other = { ...event, eventId: '019a0000-0000-7000-8000-000000000002' };
    expect(requestIdOf(storedForm(other, streamId))).toBe(REQUEST);
  });

  it('given metadata of no request (no client IP, no request id) or no event, then none', () => {
    const { event } = issuance();
    expect(requestIdOf({ ...event, metadata: { actor: 'operator:ops' } })).toBeUndefined();
    expect(requestIdOf(undefined)).toBeUndefined();
  });
});
