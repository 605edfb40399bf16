import { ConfigError, loadConfig, type Config, type ConfigPurpose } from '../config/config.js';

/** Ends the process with exit code 2 and the message of a ConfigError; rethrows anything else. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) usageExit(error.message);
  throw error;
}

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
