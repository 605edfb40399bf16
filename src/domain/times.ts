/** Whole-second times as ISO text and epoch seconds; memoised: a second's tokens share them. */

const REMEMBERED = 16;
const isoBySeconds = new Map<number, string>();
const secondsByIso = new Map<string, number | undefined>();

function remember<Key, Value>(memo: Map<Key, Value>, key: Key, value: Value): Value {
  if (memo.size >= REMEMBERED) memo.clear();
  memo.set(key, value);
  return value;
}

/** Seconds since the epoch as ISO text. */
export function isoOfSeconds(seconds: number): string {
  return (
    isoBySeconds.get(seconds) ??
    remember(isoBySeconds, seconds, new Date(seconds * 1000).toISOString())
  );
}

/** ISO text of a whole second as seconds since the epoch; undefined for any other text. */
export function secondsOfIso(text: string): number | undefined {
  if (text.length !== 24 || !text.endsWith('.000Z')) return undefined;
  if (secondsByIso.has(text)) return secondsByIso.get(text);
  const ms = Date.parse(text);
  // Exactly the text printed back, or it would not survive the round trip (Date.parse is lenient).
  const exact = Number.isFinite(ms) && new Date(ms).toISOString() === text;
  return remember(secondsByIso, text, exact ? ms / 1000 : undefined);
}

/** Whole seconds since the epoch (a JWT's `iat`, `exp`) of a time in milliseconds. */
export function secondsOf(ms: number): number {
  return Math.floor(ms / 1000);
}

/** Milliseconds of a number of seconds: a duration, or a time in seconds since the epoch. */
export function msOf(seconds: number): number {
  return seconds * 1000;
}

/** The Date of a time in seconds since the epoch. */
export function dateOfSeconds(seconds: number): Date {
  return new Date(seconds * 1000);
}
