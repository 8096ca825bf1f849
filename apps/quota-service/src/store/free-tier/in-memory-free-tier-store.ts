import { minuteOf } from '../clock-windows';
import { DailyBudget } from './daily-budget';
import { FreeReservation, FreeTierSettings, FreeTierSnapshot, FreeTierStore, ReserveOutcome } from './free-tier-store';
import { poolHoldId } from './pool-hold-id';

/**
 * A FreeTierStore in this process's memory, for development and tests: correct with a single
 * replica only, and lost on restart (settings fall back to the defaults). Time comes from
 * `now` (ms), injectable for tests.
 */
export class InMemoryFreeTierStore implements FreeTierStore {
  private settings: FreeTierSettings;
  private readonly allowances = new Map<string, DailyBudget>();
  private readonly pool = new DailyBudget();
  private sweptMinute = -1;

  constructor(
    defaults: Readonly<FreeTierSettings>,
    private readonly now: () => number = Date.now,
  ) {
    this.settings = { ...defaults };
  }

  async snapshot(): Promise<FreeTierSnapshot> {
    return { settings: { ...this.settings }, nowMs: this.now() };
  }

  async updateSettings(change: Partial<FreeTierSettings>): Promise<FreeTierSettings> {
    this.settings = { ...this.settings, ...change };
    return { ...this.settings };
  }

  async reserve(r: FreeReservation): Promise<ReserveOutcome> {
    const now = this.now();
    this.forgetIdle(now);
    const allowance = this.allowances.get(r.accountId) ?? new DailyBudget();
    this.allowances.set(r.accountId, allowance);
    const answer = allowance.reserve(r.requestId, r.tokens, r.dailyTokens, r.ttlMs, now);
    if (answer === 'used-up') return 'allowance-used-up';
    if (answer === 'too-small') return 'allowance-too-small';
    if (this.pool.reserve(poolHoldId(r.accountId, r.requestId), r.tokens, r.poolTokens, r.ttlMs, now) === 'reserved') return 'reserved';
    allowance.settle(r.requestId, 0, now);
    return 'pool-exhausted';
  }

  async settle(accountId: string, requestId: string, tokens: number): Promise<boolean> {
    return this.settleAt(accountId, requestId, tokens, this.now());
  }

  /** settle, at once: a step of InMemoryAdmissionStore's atomic finish. */
  settleAt(accountId: string, requestId: string, tokens: number, now: number): boolean {
    const settled = this.allowances.get(accountId)?.settle(requestId, tokens, now) ?? false;
    const pooled = this.pool.settle(poolHoldId(accountId, requestId), tokens, now);
    return settled || pooled;
  }

  async allowanceUsed(accountId: string): Promise<number> {
    return this.allowances.get(accountId)?.usedOn(this.now()) ?? 0;
  }

  /** Once per minute, drops the allowances that hold nothing of today, so that memory stays bounded. */
  private forgetIdle(now: number): void {
    if (minuteOf(now) === this.sweptMinute) return;
    this.sweptMinute = minuteOf(now);
    for (const [accountId, allowance] of this.allowances) if (allowance.isIdle(now)) this.allowances.delete(accountId);
  }
}
