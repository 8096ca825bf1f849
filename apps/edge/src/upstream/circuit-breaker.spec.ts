import { BreakerState, CircuitBreaker } from './circuit-breaker';

function breaker() {
  let clock = 0;
  const changes: BreakerState[] = [];
  const b = new CircuitBreaker(
    { failureThreshold: 3, windowMs: 1000, cooldownMs: 500 },
    (s) => changes.push(s),
    () => clock,
  );
  const call = (ok: boolean) => {
    const report = b.admit();
    if (!report) return 'refused';
    report(ok);
    return 'called';
  };
  return { b, changes, call, tick: (ms: number) => (clock += ms) };
}

describe('CircuitBreaker', () => {
  it('stays closed below the threshold and opens at it', () => {
    const { b, call, changes } = breaker();
    call(false);
    call(false);
    expect(b.state()).toBe('closed');
    call(false);
    expect(b.state()).toBe('open');
    expect(call(true)).toBe('refused');
    expect(changes).toEqual(['open']);
  });

  it('counts only consecutive failures: a success starts over', () => {
    const { b, call } = breaker();
    call(false);
    call(false);
    call(true);
    call(false);
    call(false);
    expect(b.state()).toBe('closed');
  });

  it('starts over when the failures are spread wider than the window', () => {
    const { b, call, tick } = breaker();
    call(false);
    call(false);
    tick(1001);
    call(false);
    call(false);
    expect(b.state()).toBe('closed');
    call(false);
    expect(b.state()).toBe('open');
  });

  it('lets one probe through after the cool-down; its success closes the breaker', () => {
    const { b, call, tick, changes } = breaker();
    [1, 2, 3].forEach(() => call(false));
    tick(499);
    expect(call(true)).toBe('refused');
    tick(1);
    const probe = b.admit();
    expect(probe).toBeDefined();
    expect(b.state()).toBe('half-open');
    expect(b.admit()).toBeUndefined();
    probe?.(true);
    expect(b.state()).toBe('closed');
    expect(call(true)).toBe('called');
    expect(changes).toEqual(['open', 'half-open', 'closed']);
  });

  it('opens again for a whole cool-down when the probe fails', () => {
    const { b, call, tick } = breaker();
    [1, 2, 3].forEach(() => call(false));
    tick(500);
    expect(call(false)).toBe('called');
    expect(b.state()).toBe('open');
    tick(499);
    expect(call(true)).toBe('refused');
    tick(1);
    expect(call(true)).toBe('called');
    expect(b.state()).toBe('closed');
  });

  it('closes on the success of a call admitted before it opened', () => {
    const { b, call } = breaker();
    const slow = b.admit();
    [1, 2, 3].forEach(() => call(false));
    expect(b.state()).toBe('open');
    slow?.(true);
    expect(b.state()).toBe('closed');
  });
});
