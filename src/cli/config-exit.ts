import { exitOnConfigError } from '#settings/command-line.js';
import { loadConfig, type Config, type ConfigPurpose } from '../config/config.js';

/** Says what was wrong with the command line (or its settings) and exits with code 2. */
export function usageExit(message: string): never {
  console.error(message);
  process.exit(2);
}

/** Loads the configuration or ends the process with a message naming each bad variable. */
export function configOrExit(purpose: ConfigPurpose = 'issuer'): Config {
  try {
    return loadConfig(process.env, purpose);
  } catch (error) {
    return exitOnConfigError(error);
  }
}
