export * from './config-error.js';
export * from './read-settings.js';
export * from './setting-groups.js';
export * from './setting-notes.js';
export * from './setting-types.js';
export * from './setting-value.js';
export * from './settings-doc.js';
