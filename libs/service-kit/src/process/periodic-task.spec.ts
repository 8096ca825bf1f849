import { PassOutcome, PeriodicTask } from './periodic-task';

/** A pass whose outcomes are scripted, one per run (then nothing), recording when each run started. */
function scripted(...outcomes: (PassOutcome | Error)[]) {
  const startedAt: number[] = [];
  const pass = async (): Promise<PassOutcome> => {
    startedAt.push(Date.now());
    const outcome = outcomes.shift();
    if (outcome instanceof Error) throw outcome;
    return outcome;
  };
  return { pass, startedAt };
}

describe('PeriodicTask', () => {
  let task: PeriodicTask;
  const errors: unknown[] = [];
  beforeEach(() => {
    jest.useFakeTimers({ now: 0 });
    errors.length = 0;
  });
  afterEach(async () => {
    await task.stop();
    jest.useRealTimers();
  });

  it('runs its pass every interval, counted from the end of the last pass, first after one interval', async () => {
    const startedAt: number[] = [];
    task = new PeriodicTask(
      async () => {
        startedAt.push(Date.now());
        // A pass that lasts 30 ms of the fake clock.
        await new Promise((resolve) => setTimeout(resolve, 30));
      },
      { intervalMs: 100, failed: (err) => errors.push(err) },
    );
    task.start();
    await jest.advanceTimersByTimeAsync(400);
    expect(startedAt).toEqual([100, 230, 360]);
  });

  it('runs its first pass at once with runNow, and a sync pass as well as an async one', async () => {
    let runs = 0;
    task = new PeriodicTask(() => void runs++, { intervalMs: 100, failed: (err) => errors.push(err) });
    task.start(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(100);
    expect(runs).toBe(2);
  });

  it('runs again at once after a pass that had more work', async () => {
    const { pass, startedAt } = scripted('more', 'more', undefined);
    task = new PeriodicTask(pass, { intervalMs: 100, failed: (err) => errors.push(err) });
    task.start();
    await jest.advanceTimersByTimeAsync(250);
    // At once: on the next turn of the timers (Node makes a 0 ms timeout 1 ms).
    expect(startedAt).toEqual([100, 101, 102, 202]);
  });

  it('hands a thrown error to its hook and goes on after one interval when it has no backoff', async () => {
    const boom = new Error('store down');
    const { pass, startedAt } = scripted(boom, boom);
    task = new PeriodicTask(pass, { intervalMs: 100, failed: (err) => errors.push(err) });
    task.start();
    await jest.advanceTimersByTimeAsync(300);
    expect(errors).toEqual([boom, boom]);
    expect(startedAt).toEqual([100, 200, 300]);
  });

  it('backs off after failures in a row, thrown or told, as the retry policy says (doubling up to its bound), and from the first success paces again', async () => {
    jest.spyOn(Math, 'random').mockReturnValue(1); // backoffMs at the top of its jitter: the bound itself
    const { pass, startedAt } = scripted(new Error('down'), 'failed', 'failed', 'failed', undefined);
    task = new PeriodicTask(pass, { intervalMs: 100, backoff: { firstMs: 100, maxMs: 300 }, failed: (err) => errors.push(err) });
    task.start();
    await jest.advanceTimersByTimeAsync(1300);
    // Waits after the failures: 100, 200, 300 (bound), 300; after the success, the interval.
    expect(startedAt).toEqual([100, 200, 400, 700, 1000, 1100, 1200, 1300]);
    expect(errors).toHaveLength(1);
    jest.mocked(Math.random).mockRestore();
  });

  it('stops between passes: no pass after stop', async () => {
    const { pass, startedAt } = scripted();
    task = new PeriodicTask(pass, { intervalMs: 100, failed: (err) => errors.push(err) });
    task.start();
    await jest.advanceTimersByTimeAsync(150);
    await task.stop();
    await jest.advanceTimersByTimeAsync(500);
    expect(startedAt).toEqual([100]);
  });

  it('waits in stop for the pass in progress, and runs none after it even when it had more work', async () => {
    let finish: () => void = () => undefined;
    let runs = 0;
    task = new PeriodicTask(
      () => {
        runs++;
        return new Promise<PassOutcome>((resolve) => (finish = () => resolve('more')));
      },
      { intervalMs: 100, failed: (err) => errors.push(err) },
    );
    task.start(true);
    await jest.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(1000);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await jest.advanceTimersByTimeAsync(1000);
    expect(runs).toBe(1);
  });

  it('starts again after a stop, and a second start while running changes nothing', async () => {
    const { pass, startedAt } = scripted();
    task = new PeriodicTask(pass, { intervalMs: 100, failed: (err) => errors.push(err) });
    task.start();
    task.start(true);
    await jest.advanceTimersByTimeAsync(100);
    await task.stop();
    task.start(true);
    await jest.advanceTimersByTimeAsync(0);
    expect(startedAt).toEqual([100, 100]);
  });

  it('never holds the process open: its timer is unref’d', () => {
    const unref = jest.spyOn(global, 'setTimeout');
    task = new PeriodicTask(() => undefined, { intervalMs: 100, failed: (err) => errors.push(err) });
    task.start();
    const timer = unref.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    unref.mockRestore();
  });
});
