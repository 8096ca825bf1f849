/** One scrape of a Prometheus /metrics endpoint. */
export interface MetricsScrape {
  /** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
  value(name: string, labels?: Record<string, string>): number;
}

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

function parse(line: string): Sample | undefined {
  const match = SAMPLE.exec(line);
  if (!match) return undefined;
  const labels: Record<string, string> = {};
  for (const [, key, value] of (match[2] ?? '').matchAll(LABEL)) labels[key] = value;
  return { name: match[1], labels, value: Number(match[3]) };
}

/** Reads a /metrics endpoint (Prometheus text format). */
export async function scrapeMetrics(url: string): Promise<MetricsScrape> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const samples = (await res.text())
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map(parse)
    .filter((sample): sample is Sample => sample !== undefined);
  return {
    value: (name, labels = {}) =>
      samples
        .filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value))
        .reduce((sum, s) => sum + s.value, 0),
  };
}
