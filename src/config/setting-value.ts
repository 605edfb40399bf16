export { jsonObject, key32, settingText } from '#settings/setting-value.js';
