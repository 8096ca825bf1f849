/** How many failed sign-ins are tolerated, over what time, and how many keys are remembered. */
export interface SignInLimits {
  /** Failures within one window after which further tries are refused until it ends. */
  maxFailures: number;
  /** Length of a window, which starts at a key's first failure. */
  windowMs: number;
  /** Most emails and addresses remembered at once; the oldest are forgotten first. */
  maxTracked: number;
}

interface Window {
  failures: number;
  endsAt: number;
}

/**
 * Slows password guessing: refuses sign-in tries for an email, or from a client address, that
 * has had `maxFailures` failures in its current fixed window, until that window ends. Memory is
 * bounded by `maxTracked`.
 */
export class SignInLimiter {
  // Insertion order is window start order, so the oldest and the first to expire are at the front.
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many keys (emails and addresses) are remembered now. */
  get size(): number {
    return this.windows.size;
  }

  /** 0 when a sign-in as `email` from `address` may be tried now, else milliseconds until it may. */
  retryAfterMs(email: string, address: string): number {
    const now = this.now();
    let wait = 0;
    for (const key of [emailKey(email), addressKey(address)]) {
      const window = this.current(key, now);
      if (window && window.failures >= this.limits.maxFailures) wait = Math.max(wait, window.endsAt - now);
    }
    return wait;
  }

  /** Counts one failed sign-in against the email and one against the address. */
  recordFailure(email: string, address: string): void {
    const now = this.now();
    this.dropExpired(now);
    for (const key of [emailKey(email), addressKey(address)]) {
      const window = this.current(key, now);
      if (window) window.failures += 1;
      else this.windows.set(key, { failures: 1, endsAt: now + this.limits.windowMs });
    }
    for (const key of this.windows.keys()) {
      if (this.windows.size <= this.limits.maxTracked) break;
      this.windows.delete(key);
    }
  }

  /**
   * Forgets the email's failures after a successful sign-in. The address keeps its count: one
   * right password (say, the attacker's own account) must not reset guessing from that address.
   */
  recordSuccess(email: string): void {
    this.windows.delete(emailKey(email));
  }

  /** The key's window if it has not ended; an ended one is dropped. */
  private current(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.endsAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  /** Drops ended windows from the front, stopping at the first one still running. */
  private dropExpired(now: number): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt > now) break;
      this.windows.delete(key);
    }
  }
}

// Prefixes keep an email and an address with the same text apart.
const emailKey = (email: string): string => `e:${email.trim().toLowerCase()}`;
const addressKey = (address: string): string => `a:${address.trim()}`;
