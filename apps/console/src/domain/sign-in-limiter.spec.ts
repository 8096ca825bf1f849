import { SignInLimiter, SignInLimits } from './sign-in-limiter';

describe('SignInLimiter', () => {
  const limits: SignInLimits = { maxFailures: 5, windowMs: 60_000, maxTracked: 1000 };
  let now: number;
  const limiter = (overrides: Partial<SignInLimits> = {}) => new SignInLimiter({ ...limits, ...overrides }, () => now);
  const fail = (target: SignInLimiter, times: number, email: string, address: string) => {
    for (let i = 0; i < times; i++) target.recordFailure(email, address);
  };

  beforeEach(() => {
    now = 1_000_000;
  });

  it('lets the first five tries through and blocks the sixth', () => {
    const target = limiter();
    fail(target, 4, 'ann@example.com', '10.0.0.1');
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(0);
    target.recordFailure('ann@example.com', '10.0.0.1');
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(60_000);
  });

  it('after five failures blocks that email from any address', () => {
    const target = limiter();
    for (let i = 0; i < 5; i++) target.recordFailure('ann@example.com', `10.0.0.${i}`);
    expect(target.retryAfterMs('ann@example.com', '192.168.1.1')).toBe(60_000);
    expect(target.retryAfterMs('bob@example.com', '192.168.1.1')).toBe(0);
  });

  it('after five failures blocks that address with any email', () => {
    const target = limiter();
    for (let i = 0; i < 5; i++) target.recordFailure(`user${i}@example.com`, '10.0.0.1');
    expect(target.retryAfterMs('someone-else@example.com', '10.0.0.1')).toBe(60_000);
    expect(target.retryAfterMs('someone-else@example.com', '10.0.0.2')).toBe(0);
  });

  it('tells how long is left, and lifts the block when the window that began at the first failure ends', () => {
    const target = limiter();
    target.recordFailure('ann@example.com', '10.0.0.1');
    now += 20_000;
    fail(target, 4, 'ann@example.com', '10.0.0.1');
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(40_000);
    now += 39_999;
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(1);
    now += 1;
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(0);
  });

  it('starts a fresh count after a window ends', () => {
    const target = limiter();
    fail(target, 4, 'ann@example.com', '10.0.0.1');
    now += 60_000;
    target.recordFailure('ann@example.com', '10.0.0.1');
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(0);
    fail(target, 4, 'ann@example.com', '10.0.0.1');
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(60_000);
  });

  it('clears the email on success but keeps counting the address', () => {
    const target = limiter();
    fail(target, 5, 'ann@example.com', '10.0.0.1');
    target.recordSuccess('ann@example.com');
    expect(target.retryAfterMs('ann@example.com', '10.0.0.2')).toBe(0);
    expect(target.retryAfterMs('ann@example.com', '10.0.0.1')).toBe(60_000);
    expect(target.retryAfterMs('bob@example.com', '10.0.0.1')).toBe(60_000);
  });

  it('counts emails that differ only in case or surrounding spaces as one', () => {
    const target = limiter();
    const spellings = ['Ann@Example.com', ' ann@example.com', 'ANN@EXAMPLE.COM ', 'ann@example.com', '\tann@example.COM'];
    spellings.forEach((email, i) => target.recordFailure(email, `10.0.0.${i}`));
    expect(target.retryAfterMs(' aNn@example.com ', '192.168.1.1')).toBe(60_000);
    target.recordSuccess('ANN@example.com');
    expect(target.retryAfterMs('ann@example.com', '192.168.1.1')).toBe(0);
  });

  it('keeps an email apart from an address with the same text', () => {
    const target = limiter();
    fail(target, 5, 'x', 'y');
    expect(target.retryAfterMs('y', 'x')).toBe(0);
  });

  it('remembers at most maxTracked keys, forgetting the oldest first', () => {
    const target = limiter({ maxTracked: 4 });
    fail(target, 5, 'old@example.com', '10.0.0.1');
    for (let i = 0; i < 10; i++) {
      now += 1;
      target.recordFailure(`new${i}@example.com`, `10.0.1.${i}`);
      expect(target.size).toBeLessThanOrEqual(4);
    }
    expect(target.retryAfterMs('old@example.com', '10.0.0.1')).toBe(0);
    expect(target.retryAfterMs('new9@example.com', '10.0.1.9')).toBe(0);
    fail(target, 4, 'new9@example.com', '10.0.2.1');
    expect(target.retryAfterMs('new9@example.com', '10.0.2.2')).toBe(60_000);
  });

  it('drops ended windows as it meets them', () => {
    const target = limiter();
    fail(target, 1, 'ann@example.com', '10.0.0.1');
    fail(target, 1, 'bob@example.com', '10.0.0.2');
    expect(target.size).toBe(4);
    now += 60_000;
    target.recordFailure('cid@example.com', '10.0.0.3');
    expect(target.size).toBe(2);
  });
});
