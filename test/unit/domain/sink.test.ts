import { describe, expect, it } from 'vitest';
import {
  decideChangeSink,
  decideCreateSink,
  decideDeleteSink,
  decidePauseSink,
  decideRecordSignalsDelivered,
  decideRequestVerification,
  decideResumeSink,
  type SinkState,
} from '../../../src/domain/sink/decide.js';
import { SYSTEM_SPACE } from '../../../src/domain/events.js';

const metadata = {
  actor: 'user:alice',
  request_id: 'r1',
  client_ip: '127.0.0.1',
  user_agent: null,
};
const webhook = { kind: 'webhook' as const, url: 'https://siem.example/intake' };
const sink: SinkState = {
  sinkId: 'snk_1',
  spaceId: 'space-a',
  name: 'siem',
  target: webhook,
  paused: false,
};

describe('audit sinks (issue 43)', () => {
  it('given no sink, when an admin creates one, then sink-created names it in the space, without a secret', () => {
    const decision = decideCreateSink({
      eventId: 'e1',
      metadata,
      sinkId: 'snk_1',
      spaceId: 'space-a',
      name: 'siem',
      target: webhook,
    });
    expect(decision.ok && decision.facts.spaceId).toBe('space-a');
    const event = decision.events[0]!;
    expect(event.type).toBe('sink-created');
    expect(event.metadata.actor).toBe('user:alice');
    expect(JSON.stringify(event)).not.toContain('whsec_');
  });

  it('given a sink of another space or the operator, when an admin changes it, then it is refused', () => {
    const change = { eventId: 'e2', metadata, spaceId: 'space-b', name: 'x', target: webhook };
    expect(decideChangeSink(change, sink)).toMatchObject({ ok: false, refusal: 'not_found' });
    expect(
      decideChangeSink({ ...change, spaceId: 'space-a' }, { ...sink, spaceId: null }),
    ).toMatchObject({
      ok: false,
      refusal: 'operator_sink',
    });
  });

  it('given a sink, when changed to what it is, then nothing is recorded; when renamed, sink-changed', () => {
    const same = { eventId: 'e3', metadata, spaceId: 'space-a', name: 'siem', target: webhook };
    expect(decideChangeSink(same, sink).events).toHaveLength(0);
    expect(decideChangeSink({ ...same, name: 'splunk' }, sink).events[0]!.type).toBe(
      'sink-changed',
    );
  });

  it('given a webhook sink, when its admin gives it a new secret and nothing else, then sink-changed says the secret was rotated, never what it is', () => {
    const rotate = {
      eventId: 'e6',
      metadata,
      spaceId: 'space-a',
      name: 'siem',
      target: webhook,
      secretRotated: true,
    };
    const event = decideChangeSink(rotate, sink).events[0]!;
    expect(event.data).toMatchObject({ sink_id: 'snk_1', secret_rotated: true });
    expect(JSON.stringify(event)).not.toContain('whsec_');
  });

  it('given a failing operator sink, when the deliverer pauses it, then sink-paused in the system space; paused twice records once', () => {
    const pause = {
      eventId: 'e4',
      metadata,
      reason: 'failing' as const,
      attempts: 9,
      lastError: 'HTTP 500',
    };
    const decision = decidePauseSink(pause, { ...sink, spaceId: null });
    expect(decision.ok && decision.facts.spaceId).toBe(SYSTEM_SPACE);
    expect(decision.events[0]!.data).toMatchObject({ reason: 'failing', attempts: 9 });
    expect(decidePauseSink(pause, { ...sink, paused: true }).events).toHaveLength(0);
  });

  it('given a deleted sink, when the deliverer pauses or resumes it (its last turn), then nothing is recorded', () => {
    const deleted = { ...sink, deleted: true };
    const asked = { eventId: 'e6', metadata };
    const pause = { ...asked, reason: 'failing' as const, attempts: 9, lastError: 'HTTP 500' };
    expect(decidePauseSink(pause, deleted)).toMatchObject({ ok: true, events: [] });
    const resume = { ...asked, reason: 'answering' as const };
    expect(decideResumeSink(resume, { ...deleted, paused: true })).toMatchObject({
      ok: true,
      events: [],
    });
    // Not deleted, the same turn records its event: the test above is not vacuous.
    expect(decideResumeSink(resume, { ...sink, paused: true }).events).toHaveLength(1);
  });

  it('given a paused sink, when an admin resumes it, then sink-resumed naming who; a running one records nothing', () => {
    const resume = { eventId: 'e5', metadata, spaceId: 'space-a', reason: 'admin' as const };
    const decision = decideResumeSink(resume, { ...sink, paused: true });
    expect(decision.events[0]).toMatchObject({
      type: 'sink-resumed',
      metadata: { actor: 'user:alice' },
    });
    expect(decideResumeSink(resume, sink).events).toHaveLength(0);
  });

  it('given a space at its limit of sinks, when an admin creates one more, then it is refused (issue 51, item 6)', () => {
    const create = {
      eventId: 'e6',
      metadata,
      sinkId: 'snk_2',
      spaceId: 'space-a',
      name: 'siem',
      target: webhook,
    };
    expect(decideCreateSink({ ...create, sinks: { count: 9, limit: 10 } }).ok).toBe(true);
    expect(decideCreateSink({ ...create, sinks: { count: 10, limit: 10 } })).toMatchObject({
      ok: false,
      refusal: 'sink_limit',
    });
  });

  it('given a sink, when an admin deletes it, then sink-deleted naming who; deleted again records nothing; an operator or another space may not (issue 51, item 6)', () => {
    const command = { eventId: 'e7', metadata, spaceId: 'space-a' };
    const decision = decideDeleteSink(command, sink);
    expect(decision.ok && decision.facts.spaceId).toBe('space-a');
    expect(decision.events[0]).toMatchObject({
      type: 'sink-deleted',
      data: { sink_id: 'snk_1', name: 'siem' },
      metadata: { actor: 'user:alice' },
    });
    expect(decideDeleteSink(command, { ...sink, deleted: true })).toMatchObject({
      ok: true,
      events: [],
    });
    expect(decideDeleteSink(command, { ...sink, spaceId: null }).ok).toBe(false);
    expect(decideDeleteSink({ ...command, spaceId: 'space-b' }, sink).ok).toBe(false);
    expect(
      decideDeleteSink({ ...command, spaceId: 'space-b' }, { ...sink, deleted: true }).ok,
    ).toBe(false);
    // A deleted sink takes no other change.
    expect(decideResumeSink({ ...command, reason: 'admin' }, { ...sink, deleted: true }).ok).toBe(
      false,
    );
  });

  it("given a receiver's stream, when another receiver or space asks, then it is not found; an admin's pause is not its to lift", () => {
    const stream = { ...sink, receiver: 'rcv-1', paused: true, pauseReason: 'admin' };
    const asked = { eventId: 'e9', metadata, spaceId: 'space-a', receiver: 'rcv-2', now: 0 };
    expect(decideRequestVerification(asked, stream)).toMatchObject({ refusal: 'not_found' });
    const stranger = { ...asked, receiver: 'rcv-1', spaceId: 'space-b' };
    expect(decideRequestVerification(stranger, stream)).toMatchObject({ refusal: 'not_found' });
    // An admin's own sink is no receiver's.
    expect(decideRequestVerification({ ...asked, receiver: 'rcv-1' }, sink)).toMatchObject({
      refusal: 'not_found',
    });
    const resume = { eventId: 'e10', metadata, spaceId: 'space-a', receiver: 'rcv-1' };
    expect(decideResumeSink({ ...resume, reason: 'receiver' }, stream)).toMatchObject({
      refusal: 'admin_paused',
    });
    const failing = { ...stream, pauseReason: 'failing' };
    expect(decideResumeSink({ ...resume, reason: 'receiver' }, failing).events).toHaveLength(1);
  });

  it("given a receiver's stream verified a while ago, when it asks again, then within the interval it waits, after it a verification is recorded with its state", () => {
    const at = 1_000_000;
    const stream = { ...sink, receiver: 'rcv-1', verificationRequestedAt: at };
    const asked = { eventId: 'e11', metadata, spaceId: 'space-a', receiver: 'rcv-1' };
    expect(decideRequestVerification({ ...asked, now: at + 10_000 }, stream)).toMatchObject({
      ok: false,
      refusal: 'too_soon',
      detail: '50',
    });
    const later = decideRequestVerification({ ...asked, now: at + 60_000, state: 'x' }, stream);
    expect(later.events[0]).toMatchObject({
      type: 'stream-verification-requested',
      data: { sink_id: 'snk_1', state: 'x' },
    });
  });

  it('given a receiver with its one stream, when it creates another, then it is refused', () => {
    const create = { eventId: 'e12', metadata, sinkId: 'snk_2', spaceId: 'space-a', name: 'x' };
    const made = { ...create, target: webhook, receiver: 'rcv-1', receiverStreams: 1 };
    expect(decideCreateSink(made)).toMatchObject({ ok: false, refusal: 'receiver_has_stream' });
    expect(decideCreateSink({ ...made, receiverStreams: 0 }).events[0]!.data).toMatchObject({
      receiver: 'rcv-1',
    });
  });
});

describe('SETs acknowledged (issue 65, item 4)', () => {
  it('given SETs a receiver took, when recorded, then signals-delivered names each by jti and event, in the metadata given', () => {
    const delivered = {
      sink_id: 'snk_1',
      method: 'push' as const,
      sets: [{ jti: 'j1', event_id: 'e9' }],
    };
    const decision = decideRecordSignalsDelivered({ eventId: 'e2', metadata, delivered });
    expect(decision.events.map((event) => [event.eventId, event.type, event.data])).toEqual([
      ['e2', 'signals-delivered', delivered],
    ]);
    expect(decision.events[0]!.metadata.actor).toBe('user:alice');
  });
});
