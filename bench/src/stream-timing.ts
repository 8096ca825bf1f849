import { LatencyHistogram } from './latency-histogram';
import { Target } from './target';

/** Time to first byte and the gaps between pieces of streamed replies. */
export interface StreamTiming {
  ttfb: LatencyHistogram;
  pieceGap: LatencyHistogram;
}

/** Streams `count` replies, `concurrency` at a time, recording first-byte times and gaps between pieces. */
export async function streamTiming(target: Target, body: string, count: number, concurrency: number): Promise<StreamTiming> {
  const timing: StreamTiming = { ttfb: new LatencyHistogram(), pieceGap: new LatencyHistogram() };
  let started = 0;
  const one = async () => {
    const authorization = target.authorization();
    if (authorization === undefined) return;
    const t0 = process.hrtime.bigint();
    const res = await target.pool.request({
      path: target.path,
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization },
      body,
    });
    let last: bigint | undefined;
    for await (const chunk of res.body) {
      const now = process.hrtime.bigint();
      const pieces = (chunk as Buffer)
        .toString('utf8')
        .split('\n\n')
        .filter((p) => p.startsWith('data:')).length;
      if (last === undefined) timing.ttfb.record(Number(now - t0) / 1000);
      else if (pieces > 0) timing.pieceGap.record(Number(now - last) / 1000 / pieces);
      last = now;
    }
  };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (started < count) {
        started++;
        await one().catch(() => timing.ttfb.errors++);
      }
    }),
  );
  return timing;
}
