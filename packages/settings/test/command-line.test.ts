import { describe, expect, it } from 'vitest';
import { glueOptionValues } from '../src/index.js';

const options = {
  kid: { type: 'string' },
  space: { type: 'string', multiple: true, short: 's' },
  profile: { type: 'boolean' },
} as const;

describe('command-line values that begin with "-"', () => {
  it('given "--kid <value>" with a value beginning with "-", glues it as "--kid=<value>"', () => {
    expect(glueOptionValues(['--kid', '-Xy_z'], options)).toEqual(['--kid=-Xy_z']);
  });

  it('given "--kid=<value>", leaves it as it is', () => {
    expect(glueOptionValues(['--kid=-Xy_z'], options)).toEqual(['--kid=-Xy_z']);
  });

  it('given a repeated and a short option, glues each', () => {
    expect(glueOptionValues(['--space', '-a', '-s', '--b'], options)).toEqual([
      '--space=-a',
      '-s--b',
    ]);
  });

  it('given a value that looks like --help, takes it as the value, as getopt does', () => {
    expect(glueOptionValues(['--kid', '--help'], options)).toEqual(['--kid=--help']);
  });

  it('given a boolean option, never takes the next argument as its value', () => {
    expect(glueOptionValues(['--profile', '-x'], options)).toEqual(['--profile', '-x']);
  });

  it('given "--", leaves everything after it alone', () => {
    expect(glueOptionValues(['--', '--kid', '-x'], options)).toEqual(['--', '--kid', '-x']);
  });

  it('given a value-taking option last, leaves it for the parser to call missing', () => {
    expect(glueOptionValues(['--kid'], options)).toEqual(['--kid']);
  });
});
