import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError } from './config-error.js';

// A process's settings arrive from its environment and its command line: both are read here, by
// the service's commands and by the packages' own (the witness, the offline checks).

/** A command's options, as node:util's parseArgs declares them. */
export type OptionsConfig = NonNullable<ParseArgsConfig['options']>;

/** What {@link parseCommandLine} returns: the options by name, and the positionals in order. */
export type CommandLine<Options extends OptionsConfig> = ReturnType<
  typeof parseArgs<{ options: Options; allowPositionals: true; strict: true }>
>;

/**
 * Glues every value-taking option to its value (`--kid <v>` → `--kid=<v>`), as getopt does: the
 * argument after such an option is its value even when it begins with "-". Key ids, client ids and
 * spaces are base64url, so about one in 32 does; node's parseArgs would refuse them as "ambiguous".
 * Everything after a lone `--` is left alone (positionals).
 */
export function glueOptionValues(argv: readonly string[], options: OptionsConfig): string[] {
  const takesValue = new Set<string>();
  for (const [name, option] of Object.entries(options)) {
    if (option.type !== 'string') continue;
    takesValue.add(`--${name}`);
    if (option.short) takesValue.add(`-${option.short}`);
  }
  const glued: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    if (arg === '--') {
      glued.push(...argv.slice(index));
      break;
    }
    const value = argv[index + 1];
    if (takesValue.has(arg) && value !== undefined) {
      glued.push(arg.startsWith('--') ? `${arg}=${value}` : `${arg}${value}`);
      index += 1;
    } else {
      glued.push(arg);
    }
  }
  return glued;
}

/**
 * Parses this process's arguments for a command: `--help`/`-h` (as an option, not as some other
 * option's value) prints `usage` and exits 0; an unknown option or a missing value prints what is
 * wrong and the usage, and exits 2.
 */
export function parseCommandLine<const Options extends OptionsConfig>(
  usage: string,
  options: Options,
  argv: readonly string[] = process.argv.slice(2),
): CommandLine<Options> {
  const withHelp = { ...options, help: { type: 'boolean', short: 'h' } } as const;
  let parsed;
  try {
    parsed = parseArgs({
      args: glueOptionValues(argv, withHelp),
      options: withHelp,
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${usage}`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return parsed as unknown as CommandLine<Options>;
}

/** Ends the process with exit code 2 and a ConfigError's message (one line a problem); rethrows the rest. */
export function exitOnConfigError(error: unknown): never {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
