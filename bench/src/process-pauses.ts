/**
 * What a process reports about its pauses at one reading: its GC counters since it started, and
 * its event-loop delay and longest GC pause since the reading before (each reading starts them again).
 */
export interface PauseReading {
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  gcPauses: number;
  gcTotalMs: number;
  gcMaxMs: number;
}

/** A process's pauses during one phase (between two readings), and the requests the phase carried. */
export interface PhasePauses {
  requests: number;
  /** Event-loop delay, sampled every 10 ms (perf_hooks.monitorEventLoopDelay's default resolution). */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
  gcPauses: number;
  gcTotalMs: number;
  gcMaxMs: number;
}

const value = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);

/**
 * A service's reading from its /metrics: prom-client's nodejs_eventloop_lag_p99/max_seconds
 * (which each scrape starts again) and service-kit's nodejs_gc_pause* metrics.
 */
export async function readServicePauses(metricsUrl: string): Promise<PauseReading> {
  const text = await (await fetch(metricsUrl)).text();
  return {
    loopDelayP99Ms: value(text, 'nodejs_eventloop_lag_p99_seconds') * 1000,
    loopDelayMaxMs: value(text, 'nodejs_eventloop_lag_max_seconds') * 1000,
    gcPauses: value(text, 'nodejs_gc_pauses_total'),
    gcTotalMs: value(text, 'nodejs_gc_pause_seconds_total') * 1000,
    gcMaxMs: value(text, 'nodejs_gc_pause_max_seconds') * 1000,
  };
}

/** The phase between two readings of one process. */
export function pausesBetween(before: PauseReading, after: PauseReading, requests: number): PhasePauses {
  return {
    requests,
    loopDelayP99Ms: after.loopDelayP99Ms,
    loopDelayMaxMs: after.loopDelayMaxMs,
    gcPauses: after.gcPauses - before.gcPauses,
    gcTotalMs: after.gcTotalMs - before.gcTotalMs,
    gcMaxMs: after.gcMaxMs,
  };
}
