import { ConfigError, loadConfig, type Config, type ConfigPurpose } from '../config/config.js';

/** Ends the process with exit code 2 and the message of a ConfigError; rethrows anything else. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}

/** Loads the configuration or ends the process with a message naming each bad variable. */
export function configOrExit(purpose: ConfigPurpose = 'issuer'): Config {
  try {
    return loadConfig(process.env, purpose);
  } catch (error) {
    return exitOnConfigError(error);
  }
}
