import { LatencyHistogram } from './latency-histogram';
import { send, Target } from './target';

/**
 * Sends requests at a fixed arrival rate for `seconds`, whatever the replies do (open loop),
 * and measures each latency from its scheduled send time, so a stall is not hidden
 * (no coordinated omission).
 */
export async function openLoop(target: Target, body: string, rate: number, seconds: number): Promise<LatencyHistogram> {
  const histogram = new LatencyHistogram();
  const total = Math.round(rate * seconds);
  const intervalNs = 1e9 / rate;
  const start = process.hrtime.bigint();
  const inFlight: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const now = Number(process.hrtime.bigint() - start);
    while (sent < total && sent * intervalNs <= now) {
      const scheduled = sent * intervalNs;
      inFlight.push(
        send(target, body).then((status) => {
          if (status !== 200) histogram.errors++;
          else histogram.record((Number(process.hrtime.bigint() - start) - scheduled) / 1000);
        }),
      );
      sent++;
    }
    // Sleep until the next send is due, never spin: the load generator shares 2 cores with the
    // gateway. A send may leave up to a timer tick (~1 ms) late; its latency counts from the
    // scheduled time all the same, for the gateway and the direct run alike.
    const waitMs = (sent * intervalNs - Number(process.hrtime.bigint() - start)) / 1e6;
    await new Promise((r) => setTimeout(r, Math.max(1, waitMs)));
  }
  await Promise.all(inFlight);
  return histogram;
}

/** Saturation: `workers` requests always in flight for `seconds` (closed loop); requests per second. */
export async function closedLoop(target: Target, body: string, workers: number, seconds: number): Promise<{ rps: number; errors: number }> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < deadline) {
        if ((await send(target, body)) === 200) done++;
        else errors++;
      }
    }),
  );
  return { rps: done / seconds, errors };
}
