import { eventually } from './eventually';

describe('eventually', () => {
  it('returns the first value the check accepts', async () => {
    let reads = 0;
    const value = await eventually(
      () => ++reads,
      (n) => n === 3,
      { intervalMs: 1 },
    );
    expect(value).toBe(3);
    expect(reads).toBe(3);
  });

  it('waits for a truthy value when given no check', async () => {
    const answers = [0, '', 'ready'];
    await expect(eventually(async () => answers.shift(), { intervalMs: 1 })).resolves.toBe('ready');
  });

  it('names what it waited for and the last value read when the time runs out', async () => {
    await expect(
      eventually(
        () => ({ holds: 2 }),
        (b) => b.holds === 0,
        { timeoutMs: 20, intervalMs: 5, what: 'holds released' },
      ),
    ).rejects.toThrow('holds released not met within 20 ms; last read: { holds: 2 }');
  });

  it('fails at once when a read throws', async () => {
    let reads = 0;
    const failing = eventually(() => {
      reads += 1;
      throw new Error('connection refused');
    });
    await expect(failing).rejects.toThrow('connection refused');
    expect(reads).toBe(1);
  });
});
