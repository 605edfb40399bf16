export { FILE_PREFIX, jsonObject, key32, settingText } from '#settings/setting-value.js';
