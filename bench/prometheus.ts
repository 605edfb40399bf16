/**
 * The value of one Prometheus sample in a /metrics text, or 0: the first line of `metric` whose
 * labels include every `label="value"` given.
 */
export function sampleValue(
  text: string,
  metric: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  const line = text
    .split('\n')
    .find(
      (l) =>
        (l.startsWith(`${metric}{`) || l.startsWith(`${metric} `)) &&
        wanted.every((label) => l.includes(label)),
    );
  return Number(line?.split(' ').at(-1) ?? 0);
}

/** Scrapes `url` and reads one sample, see {@link sampleValue}. */
export async function scrape(
  url: string,
  metric: string,
  labels: Readonly<Record<string, string>> = {},
): Promise<number> {
  return sampleValue(await (await fetch(url)).text(), metric, labels);
}
