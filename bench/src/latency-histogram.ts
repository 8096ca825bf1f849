import * as hdr from 'hdr-histogram-js';

/** Latencies in microseconds, with the percentiles the report shows. */
export class LatencyHistogram {
  private readonly histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  errors = 0;

  record(micros: number): void {
    this.histogram.recordValue(Math.max(1, Math.round(micros)));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** The percentile in milliseconds. */
  ms(percentile: number): number {
    return this.histogram.getValueAtPercentile(percentile) / 1000;
  }
}
