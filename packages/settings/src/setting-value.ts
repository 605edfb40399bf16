import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from './config-error.js';

/** The prefix that says a setting names a file holding its value rather than the value. */
export const FILE_PREFIX = 'file:';

/**
 * The text of a setting given inline or, as `file:<path>`, in a file. Never guessed from the
 * value's shape: a key that happens to contain `/` is a key. Errors name the setting and never
 * its value, which may be the secret itself.
 */
export async function settingText(setting: string, value: string): Promise<string> {
  if (!value.startsWith(FILE_PREFIX)) return value;
  try {
    return await readFile(path.resolve(value.slice(FILE_PREFIX.length)), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError([`${setting}: the file it names could not be read (${code})`]);
  }
}

// 32 bytes in either base64 alphabet: 43 characters, or 44 with the padding `openssl rand
// -base64 32` adds.
const KEY_32 = /^[A-Za-z0-9+/_-]{43}=?$/;

/** 32 bytes written in base64 or base64url; ConfigError naming `setting` otherwise. */
export function key32(setting: string, text: string): Buffer {
  const trimmed = text.trim();
  // Node's base64 decoder reads both alphabets.
  const key = KEY_32.test(trimmed) ? Buffer.from(trimmed, 'base64') : Buffer.alloc(0);
  if (key.length !== 32) {
    throw new ConfigError([
      `${setting}: expected 32 bytes in base64 or base64url (as \`openssl rand -base64 32\` prints), or ${FILE_PREFIX}<path> of a file holding them`,
    ]);
  }
  return key;
}

/** A JSON object (a JWK) from a setting's text; ConfigError naming `setting` otherwise. */
export function jsonObject(
  setting: string,
  text: string,
  expected: string,
): Record<string, unknown> {
  const problem = `${setting}: expected ${expected} as JSON, or ${FILE_PREFIX}<path> of a file holding it`;
  if (!text.trim().startsWith('{')) throw new ConfigError([problem]);
  try {
    // JSON.parse's own message quotes the text: never passed on.
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ConfigError([problem]);
  }
}
