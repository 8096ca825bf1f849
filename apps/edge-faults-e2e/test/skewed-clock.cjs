// Preloaded (--require) into a process whose clock is wrong: Date.now() and new Date() read
// SKEWED_CLOCK_MS milliseconds away from the machine's time (negative: behind), as on a machine
// whose clock drifted or was set wrong. Timers and performance.now() keep real time.
const offsetMs = Number(process.env.SKEWED_CLOCK_MS ?? 0);
const RealDate = Date;

class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...args);
  }

  static now() {
    return RealDate.now() + offsetMs;
  }
}

globalThis.Date = SkewedDate;
