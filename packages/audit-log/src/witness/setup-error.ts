/**
 * Why the witness cannot start (a folder held, a record it cannot read, a port it cannot have),
 * worded as the service words its configuration errors: one problem, one line.
 */
export class WitnessSetupError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n  ${problems.join('\n  ')}`,
    );
    this.name = 'WitnessSetupError';
    this.problems = problems;
  }
}

/** Ends the process with exit code 2 and the message of a WitnessSetupError; rethrows the rest. */
export function exitOnSetupError(error: unknown): never {
  if (error instanceof WitnessSetupError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
