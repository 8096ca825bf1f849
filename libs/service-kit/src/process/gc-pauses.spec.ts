import { eventually } from '@gw/testing';
import { renderMetrics } from './metrics';

const valueOf = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);

describe('garbage-collection pauses', () => {
  it('counts every pause and its time, and the longest since the last scrape', async () => {
    let kept: object[] = [];
    const text = await eventually(
      async () => {
        // Short-lived objects enough for a few young-generation collections.
        for (let i = 0; i < 200_000; i++) {
          kept.push({ i, s: `x${i}` });
          if (kept.length > 10_000) kept = [];
        }
        return renderMetrics();
      },
      (t) => valueOf(t, 'nodejs_gc_pauses_total') > 0 && valueOf(t, 'nodejs_gc_pause_max_seconds') > 0,
      { what: 'a garbage-collection pause in the metrics' },
    );
    const longest = valueOf(text, 'nodejs_gc_pause_max_seconds');
    expect(valueOf(text, 'nodejs_gc_pause_seconds_total')).toBeGreaterThanOrEqual(longest);
    expect(longest).toBeLessThan(1);
  });
});
