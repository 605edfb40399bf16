import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

// NOTIFY payloads must stay under 8,000 bytes; a message over this is sent in parts.
const MAX_PAYLOAD = 7000;

/** A channel's MAC key, derived for `purpose`, so the shared secret itself signs nothing else. */
export function channelKey(sharedKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', sharedKey, '', purpose, 32));
}

const macOf = (key: Buffer, json: string) =>
  createHmac('sha256', key).update(json).digest('base64url');

/** A message part as sent: `<mac>.<json>`. */
export function sealedPayload(key: Buffer, json: string): string {
  return `${macOf(key, json)}.${json}`;
}

/** The JSON a payload carries if `key` sealed it. */
export function openedPayload(key: Buffer, payload: string): string | undefined {
  const dot = payload.indexOf('.');
  if (dot <= 0) return undefined;
  const mac = Buffer.from(payload.slice(0, dot));
  const json = payload.slice(dot + 1);
  const expected = Buffer.from(macOf(key, json));
  return mac.length === expected.length && timingSafeEqual(mac, expected) ? json : undefined;
}

/**
 * Splits a message into parts whose JSON (`{ from, message }`) fits a NOTIFY payload, each part
 * the message with half of every list it holds: spending adds up, so parts lose nothing.
 */
export function splitMessage<Message extends object>(message: Message, from: string): string[] {
  const payload = JSON.stringify({ from, message });
  const lists = Object.entries(message).filter((entry): entry is [string, unknown[]] =>
    Array.isArray(entry[1]),
  );
  if (payload.length <= MAX_PAYLOAD || lists.every(([, list]) => list.length <= 1)) {
    return [payload];
  }
  const half = (first: boolean): Message => ({
    ...message,
    ...Object.fromEntries(
      lists.map(([name, list]) => {
        const middle = list.length / 2;
        return [name, first ? list.slice(0, middle) : list.slice(middle)];
      }),
    ),
  });
  return [half(true), half(false)].flatMap((part) => splitMessage(part, from));
}
