import { dayOf } from '../clock-windows';

interface Hold {
  tokens: number;
  /** Time the reservation expires; undefined once expired (its tokens were returned). */
  expiresAt: number | undefined;
}

/** The answer of DailyBudget.reserve: see the Lua twin in free-tier-scripts.ts. */
export type BudgetAnswer = 'reserved' | 'used-up' | 'too-small';

/**
 * Tokens used per UTC day against a limit, with reservations that are settled by the real
 * tokens or expire. The in-memory twin of the budget scripts in free-tier-scripts.ts, used
 * for each account's allowance and for the pool. Not thread-safe beyond Node's one thread.
 */
export class DailyBudget {
  private day = Number.NaN;
  private used = 0;
  private readonly holds = new Map<string, Hold>();

  /** Reserves `tokens` unless `limit` is already reached (`used-up`) or too close (`too-small`). */
  reserve(holdId: string, tokens: number, limit: number, ttlMs: number, now: number): BudgetAnswer {
    this.catchUp(now);
    if (this.holds.has(holdId)) return 'reserved';
    if (this.used >= limit) return 'used-up';
    if (limit - this.used < tokens) return 'too-small';
    this.used += tokens;
    this.holds.set(holdId, { tokens, expiresAt: now + ttlMs });
    return 'reserved';
  }

  /** Replaces a reservation of today by the real tokens; false when there is none. */
  settle(holdId: string, tokens: number, now: number): boolean {
    this.catchUp(now);
    const hold = this.holds.get(holdId);
    if (!hold) return false;
    this.used += tokens - hold.tokens;
    this.holds.delete(holdId);
    return true;
  }

  /** The tokens used on `now`'s day, live reservations included. */
  usedOn(now: number): number {
    this.catchUp(now);
    return this.used;
  }

  /** True when nothing of `now`'s day is kept, so the budget may be forgotten. */
  isIdle(now: number): boolean {
    return this.day !== dayOf(now) || (this.used === 0 && this.holds.size === 0);
  }

  /** Starts a new day (forgetting the last one's reservations) and gives back the tokens of expired reservations. */
  private catchUp(now: number): void {
    const day = dayOf(now);
    if (day !== this.day) {
      this.day = day;
      this.used = 0;
      this.holds.clear();
    }
    for (const hold of this.holds.values()) {
      if (hold.expiresAt === undefined || hold.expiresAt > now) continue;
      this.used -= hold.tokens;
      hold.tokens = 0;
      hold.expiresAt = undefined;
    }
  }
}
