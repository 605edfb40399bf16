import { describe, expect, it } from 'vitest';
import { isoOfSeconds, secondsOfIso } from '../../../src/domain/times.js';

describe('times of whole seconds, in ISO text and in epoch seconds', () => {
  it('given whole seconds, then the ISO text an event carries, and back', () => {
    for (let seconds = 1_795_000_000; seconds < 1_795_000_040; seconds++) {
      const text = isoOfSeconds(seconds);
      expect(text).toBe(new Date(seconds * 1000).toISOString());
      expect(secondsOfIso(text)).toBe(seconds);
      // Asked again (remembered), the same answers.
      expect(isoOfSeconds(seconds)).toBe(text);
      expect(secondsOfIso(text)).toBe(seconds);
    }
  });

  it('given text that is not exactly a whole second, then no seconds', () => {
    for (const text of [
      '2026-11-23T10:00:00.123Z', // milliseconds would be lost
      '2026-11-23T10:00:00Z', // another spelling of the same time: it would not come back as is
      '2026-13-45T99:99:99.000Z', // no time at all
      'zzzzzzzzzzzzzzzzzzz.000Z', // Date.parse reads this as 2000-01-01
      '2026-11-23T24:00:00.000Z', // the next day's midnight, spelled otherwise
    ]) {
      expect(secondsOfIso(text), text).toBeUndefined();
      expect(secondsOfIso(text), `${text}, asked again`).toBeUndefined();
    }
  });
});
