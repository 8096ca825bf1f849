/** Thresholds of the provider's circuit breaker (all from configuration). */
export interface BreakerSettings {
  /** Consecutive failures that open the breaker. */
  failureThreshold: number;
  /** The failures must fall within this time of each other's first; an older run starts over. */
  windowMs: number;
  /** How long the breaker stays open before one request may probe the provider. */
  cooldownMs: number;
}

/** closed: calls go through; open: refused; half-open: one probe is under way, the rest refused. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Reports how an admitted call went: true when the provider answered with a status below 500. */
export type CallReport = (ok: boolean) => void;

/**
 * Stops calling a provider that fails again and again. `failureThreshold` consecutive failures
 * (connection failures, 5xx) within `windowMs` open it; after `cooldownMs` one request probes:
 * its success closes the breaker, its failure opens it for another cool-down. Any success closes it.
 */
export class CircuitBreaker {
  private failures = 0;
  private firstFailureAt = 0;
  private openedAt: number | undefined;
  private probing = false;

  constructor(
    private readonly settings: BreakerSettings,
    private readonly onChange: (state: BreakerState) => void = () => undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Asks to call the provider: a function to report the outcome with, or undefined when refused. */
  admit(): CallReport | undefined {
    if (this.openedAt === undefined) return (ok) => this.record(ok, false);
    if (this.probing || this.now() - this.openedAt < this.settings.cooldownMs) return undefined;
    this.probing = true;
    this.onChange('half-open');
    return (ok) => this.record(ok, true);
  }

  /** Where the breaker stands now. */
  state(): BreakerState {
    if (this.openedAt === undefined) return 'closed';
    return this.probing ? 'half-open' : 'open';
  }

  private record(ok: boolean, probe: boolean): void {
    if (probe) this.probing = false;
    if (ok) {
      this.failures = 0;
      if (this.openedAt !== undefined) {
        this.openedAt = undefined;
        this.onChange('closed');
      }
      return;
    }
    const now = this.now();
    if (this.openedAt !== undefined) {
      if (probe) this.open(now);
      return;
    }
    if (this.failures === 0 || now - this.firstFailureAt > this.settings.windowMs) {
      this.failures = 0;
      this.firstFailureAt = now;
    }
    this.failures += 1;
    if (this.failures >= this.settings.failureThreshold) this.open(now);
  }

  private open(now: number): void {
    this.openedAt = now;
    this.onChange('open');
  }
}
