import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
// Through the front door a user imports: what it names is what is tested.
import {
  addressList,
  commaList,
  ConfigError,
  documentedDefault,
  flag,
  integer,
  key32,
  nonEmpty,
  oneOf,
  optional,
  readSettings,
  settingGroups,
  settingsDoc,
  settingText,
  text,
  undocumentedSettings,
} from '../src/index.js';

const { groups, schema } = settingGroups({
  Server: {
    PORT: integer(0, 65_535, 8080).describe('The port.'),
    MODE: oneOf(['a', 'b'], 'a').describe('A | B.'),
    DEBUG: flag(false).describe('Debugging.'),
  },
  Secrets: {
    API_KEY: optional(nonEmpty, 'generated').describe('The key.'),
    NAME: text('svc').describe('Its\nname.'),
    HOSTS: optional(commaList).describe('Hosts.'),
  },
});

describe('declared settings', () => {
  it('read defaults, and an empty value as unset', () => {
    const { values, given } = readSettings(schema, { PORT: '', DEBUG: '1' }, /KEY/);
    expect(values).toEqual({ PORT: 8080, MODE: 'a', DEBUG: true, NAME: 'svc' });
    expect(given).toEqual({ DEBUG: '1' });
  });

  it('name every bad setting, never echoing a secret', () => {
    let error: unknown;
    try {
      readSettings(schema, { PORT: '70000', MODE: 'c', API_KEY: '', HOSTS: ' , ' }, /KEY/);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems } = error as ConfigError;
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^PORT: .*65535.* \(got "70000"\)$/);
    expect(problems[1]).toMatch(/^MODE: .* \(got "c"\)$/);
    expect(problems[2]).toMatch(/^HOSTS: needs at least one comma-separated value/);
    // A secret's wrong value may be the right one mistyped.
    expect(() => readSettings(schema, { API_KEY: 1 as never }, /KEY/)).toThrow(
      /^Invalid configuration: API_KEY: [^(]*$/,
    );
  });

  it('refuse an address block that means everyone', () => {
    const blocks = addressList('no', true);
    expect(blocks.parse('10.0.0.0/8, siem.internal,[::1]')).toEqual([
      '10.0.0.0/8',
      'siem.internal',
      '[::1]',
    ]);
    for (const bad of ['0.0.0.0/0', '::/0', 'a b', '10.0.0.0/33', 'x/8']) {
      expect(blocks.safeParse(bad).success, bad).toBe(false);
    }
    expect(addressList('no').safeParse('siem.internal').success).toBe(false);
  });
});

describe('the document', () => {
  it('is a table a group, defaults and notes from the schemas', () => {
    expect(undocumentedSettings(schema.shape)).toEqual([]);
    expect(documentedDefault(schema.shape.HOSTS)).toBeUndefined();
    expect(settingsDoc('# Settings', groups)).toBe(
      [
        '# Settings',
        '',
        '## Server',
        '',
        '| setting | default | description |',
        '| --- | --- | --- |',
        '| `PORT` | `8080` | The port. |',
        '| `MODE` | `a` | A \\| B. |',
        '| `DEBUG` | `false` | Debugging. |',
        '',
        '## Secrets',
        '',
        '| setting | default | description |',
        '| --- | --- | --- |',
        '| `API_KEY` | unset (generated) | The key. |',
        '| `NAME` | `svc` | Its name. |',
        '| `HOSTS` | unset | Hosts. |',
        '',
      ].join('\n'),
    );
  });
});

describe('values given inline or in a file', () => {
  it('reads file:<path>, and names the setting, never the value, when it cannot', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'settings-')), 'key');
    writeFileSync(file, 'inside');
    expect(await settingText('K', `file:${file}`)).toBe('inside');
    expect(await settingText('K', 'inline/with/slashes')).toBe('inline/with/slashes');
    await expect(settingText('K', 'file:/nonexistent/s3cr3t')).rejects.toThrow(
      /^Invalid configuration: K: the file it names could not be read \(ENOENT\)$/,
    );
  });

  it('reads a 32-byte key in either base64 alphabet', () => {
    const bytes = Buffer.alloc(32, 0xfb);
    expect(key32('K', bytes.toString('base64'))).toEqual(bytes);
    expect(key32('K', bytes.toString('base64url'))).toEqual(bytes);
    expect(() => key32('K', 'short')).toThrow(ConfigError);
  });
});
