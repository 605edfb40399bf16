/** A configuration that failed validation; `problems` name each setting and what it expects. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    // One problem, one line (what an operator greps for); several, one line each.
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n  ${problems.join('\n  ')}`,
    );
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
