import { existsSync } from 'node:fs';

/** Where a Chromium is: CHROMIUM_PATH, or Debian's package (`.ci/run` installs it when missing). */
export const CHROMIUM_PATH =
  [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (candidate): candidate is string => candidate !== undefined && existsSync(candidate),
  ) ?? null;

/** Flags for a headless Chromium in a container or CI: no sandbox (root), no GPU, no network. */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
