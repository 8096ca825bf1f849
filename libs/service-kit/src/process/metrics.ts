import { collectDefaultMetrics, Counter, Gauge, Histogram, register } from 'prom-client';
import { collectGcPauses } from './gc-pauses';

/** Every process's metrics live in prom-client's default registry; this adds the process defaults once. */
let defaultsCollected = false;
function ensureDefaults(): void {
  if (defaultsCollected) return;
  collectDefaultMetrics();
  collectGcPauses();
  defaultsCollected = true;
}

/** A counter registered once per process, however often its module asks for it. */
export function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  ensureDefaults();
  return (register.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter({ name, help, labelNames });
}

/** A gauge registered once per process. */
export function gauge<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> {
  ensureDefaults();
  return (register.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge({ name, help, labelNames });
}

/** A histogram registered once per process. Buckets are in seconds. */
export function histogram<L extends string>(name: string, help: string, labelNames: readonly L[], buckets: number[]): Histogram<L> {
  ensureDefaults();
  return (register.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram({ name, help, labelNames, buckets });
}

const sampleReaders = new Map<string, () => Promise<number>>();

/**
 * A gauge read from a store when scraped (a queue's length, say). The latest `read` given for a
 * name is the one used, so an app started again in the same process reads its own store. A read
 * that fails leaves the last value: the store's own alerts tell that it is gone.
 */
export function sampledGauge(name: string, help: string, read: () => Promise<number>): void {
  ensureDefaults();
  sampleReaders.set(name, read);
  if (register.getSingleMetric(name)) return;
  new Gauge({
    name,
    help,
    async collect() {
      const value = await sampleReaders
        .get(name)?.()
        .catch(() => undefined);
      if (value !== undefined) this.set(value);
    },
  });
}

/** Sub-millisecond to multi-second buckets, for calls inside the gateway. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The Prometheus text of every metric of this process. */
export function renderMetrics(): Promise<string> {
  ensureDefaults();
  return register.metrics();
}

/** The content type of renderMetrics' text. */
export const METRICS_CONTENT_TYPE = register.contentType;
