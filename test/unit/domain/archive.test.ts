import { describe, expect, it } from 'vitest';
import { decideArchive } from '../../../src/domain/archive/decide.js';

const file = (space: string, events: number) => ({
  space_id: space,
  file: `events_20261101t000000/${space}.ndjson.gz`,
  sha256: 'c'.repeat(64),
  events,
  first_sequence: 1,
  last_sequence: events,
});
const archive = (events: number, files: ReturnType<typeof file>[]) => ({
  partition: 'events_20261101t000000',
  starts_at: '2026-11-01T00:00:00.000Z',
  ends_at: '2026-12-01T00:00:00.000Z',
  events,
  files,
  manifest_sha256: 'd'.repeat(64),
});
const command = (data: ReturnType<typeof archive>) => ({
  eventId: 'e-1',
  actor: 'operator:root',
  origin: 'cli@host',
  requestId: null,
  archive: data,
});

describe('archiving a partition', () => {
  it('when its files hold every event of it, then one events-archived event in the service space names them', () => {
    const decision = decideArchive(command(archive(7, [file('a', 3), file('b', 4)])));
    expect(decision).toMatchObject({
      ok: true,
      facts: { spaceId: '_system', stream: { streamId: 'archive-events_20261101t000000' } },
    });
    expect(decision.ok && decision.events[0]!.type).toBe('events-archived');
    expect(decision.ok && decision.events[0]!.metadata.actor).toBe('operator:root');
  });

  it('when the files hold fewer events than the partition, then nothing is recorded and it is kept', () => {
    expect(decideArchive(command(archive(8, [file('a', 3), file('b', 4)])))).toEqual({
      ok: false,
      refusal: 'files_incomplete',
      events: [],
    });
  });
});
