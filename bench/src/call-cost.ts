import { LatencyHistogram } from './latency-histogram';

/** What one call costs on this machine: wall time, and CPU of this process (client and, where it runs here, server). */
export interface CallCost {
  p50Ms: number;
  cpuMsPerCall: number;
}

/** `calls` sequential calls after 200 to warm up: their p50 and this process's CPU per call. */
export async function measureCalls(calls: number, call: () => Promise<unknown>): Promise<CallCost> {
  for (let i = 0; i < 200; i++) await call();
  const histogram = new LatencyHistogram();
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await call();
    histogram.record(Number(process.hrtime.bigint() - start) / 1000);
  }
  const cpu = process.cpuUsage(cpuBefore);
  return { p50Ms: histogram.ms(50), cpuMsPerCall: (cpu.user + cpu.system) / 1000 / calls };
}
