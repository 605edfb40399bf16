// The one front door: what a user declaring and reading settings needs, by name.
export { ConfigError } from './config-error.js';
export {
  exitOnConfigError,
  glueOptionValues,
  parseCommandLine,
  type CommandLine,
  type OptionsConfig,
} from './command-line.js';
export { readSettings, type SettingsRead } from './read-settings.js';
export { settingGroups, type SettingGroup } from './setting-groups.js';
export { noted, settingNotes, type SettingNote } from './setting-notes.js';
export {
  addressList,
  booleanFlag,
  commaList,
  flag,
  integer,
  nonEmpty,
  oneOf,
  optional,
  postgresUrl,
  text,
} from './setting-types.js';
export { FILE_PREFIX, jsonObject, key32, settingText } from './setting-value.js';
export {
  documentedDefault,
  settingDescription,
  settingsDoc,
  undocumentedSettings,
} from './settings-doc.js';
