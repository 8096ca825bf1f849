import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { PauseReading } from './process-pauses';

/**
 * The floor proxy's own pauses, measured as the services' metrics measure theirs: event-loop
 * delay with monitorEventLoopDelay at its default 10 ms resolution, every GC pause counted.
 * `read()` starts the delay and the longest pause again.
 */
export function startPauseMonitor(): { read(): PauseReading } {
  const delay = monitorEventLoopDelay();
  delay.enable();
  let gcPauses = 0;
  let gcTotalMs = 0;
  let gcMaxMs = 0;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcPauses++;
      gcTotalMs += entry.duration;
      if (entry.duration > gcMaxMs) gcMaxMs = entry.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  return {
    read() {
      const reading = {
        loopDelayP99Ms: delay.percentile(99) / 1e6,
        loopDelayMaxMs: delay.max / 1e6,
        gcPauses,
        gcTotalMs,
        gcMaxMs,
      };
      delay.reset();
      gcMaxMs = 0;
      return reading;
    },
  };
}
