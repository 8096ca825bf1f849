import { PerformanceObserver } from 'node:perf_hooks';
import { Counter, Gauge } from 'prom-client';

/**
 * Every garbage-collection pause of the process, counted one by one: nodejs_gc_pauses_total,
 * nodejs_gc_pause_seconds_total, and nodejs_gc_pause_max_seconds, the longest since the last
 * scrape (reset by each scrape, as prom-client's nodejs_eventloop_lag_* gauges are).
 * prom-client's own nodejs_gc_duration_seconds observes only the first pause of each observer
 * callback, and several often arrive in one.
 */
export function collectGcPauses(): void {
  const pauses = new Counter({ name: 'nodejs_gc_pauses_total', help: 'Garbage-collection pauses.' });
  const seconds = new Counter({ name: 'nodejs_gc_pause_seconds_total', help: 'Time spent in garbage-collection pauses, seconds.' });
  let longestMs = 0;
  new Gauge({
    name: 'nodejs_gc_pause_max_seconds',
    help: 'The longest garbage-collection pause since the last scrape, seconds.',
    collect() {
      this.set(longestMs / 1000);
      longestMs = 0;
    },
  });
  new PerformanceObserver((list) => {
    let totalMs = 0;
    const entries = list.getEntries();
    for (const entry of entries) {
      totalMs += entry.duration;
      if (entry.duration > longestMs) longestMs = entry.duration;
    }
    pauses.inc(entries.length);
    seconds.inc(totalMs / 1000);
  }).observe({ entryTypes: ['gc'] });
}
