/** A long operation's progress line on stderr (stdout stays for the result). */
export interface Progress {
  /** `done` units so far; printed at most every `intervalMs`. */
  update(done: number): void;
  /** The last line, printed always. */
  finish(done: number): void;
}

/**
 * Progress as `label: 1,200 / 5,000 units (24%), 3,100/s`, refreshed in place on a terminal and
 * as one line every `intervalMs` elsewhere (CI logs).
 */
export function progressOnStderr(
  label: string,
  options: { readonly total?: number; readonly unit: string; readonly intervalMs?: number },
  stream: NodeJS.WriteStream = process.stderr,
  now: () => number = Date.now,
): Progress {
  const started = now();
  const interval = options.intervalMs ?? (stream.isTTY ? 200 : 2000);
  let last = 0;
  const format = (done: number) => {
    const seconds = Math.max((now() - started) / 1000, 0.001);
    const of =
      options.total && options.total > 0
        ? ` / ${options.total.toLocaleString('en')} ${options.unit} (${Math.min(100, Math.floor((done / options.total) * 100))}%)`
        : ` ${options.unit}`;
    return `${label}: ${done.toLocaleString('en')}${of}, ${Math.round(done / seconds).toLocaleString('en')}/s`;
  };
  const write = (line: string, final: boolean) =>
    stream.write(stream.isTTY ? `\r\u001b[2K${line}${final ? '\n' : ''}` : `${line}\n`);
  return {
    update(done) {
      if (now() - last < interval) return;
      last = now();
      write(format(done), false);
    },
    finish(done) {
      write(`${format(done)}, done in ${((now() - started) / 1000).toFixed(1)} s`, true);
    },
  };
}
