import { dayOf, minuteEndUnixSeconds, minuteOf, secondsToMinuteEnd } from './clock-windows';
import { LimitSettings, LimitStore, MinuteCount, PlaceGrant, UsageTotals } from './limit-store';

interface MinuteState {
  minute: number;
  count: number;
}

interface PlaceState {
  /** Request id -> time its place was granted. */
  held: Map<string, number>;
  lastGrantMs: number;
}

interface UsageState {
  day: number;
  todayTokens: number;
  totalTokens: number;
}

/**
 * A LimitStore in this process's memory, for development and tests. Correct only with a single
 * replica, and its state is lost on restart. Time comes from `now` (ms), injectable for tests.
 */
export class InMemoryLimitStore implements LimitStore {
  private readonly minutes = new Map<string, MinuteState>();
  private readonly places = new Map<string, PlaceState>();
  private readonly usage = new Map<string, UsageState>();
  private sweptMinute = -1;

  constructor(
    private readonly settings: Readonly<LimitSettings>,
    private readonly now: () => number = Date.now,
  ) {}

  async countRequest(accountId: string): Promise<MinuteCount> {
    const now = this.now();
    this.sweep(now);
    const minute = minuteOf(now);
    let state = this.minutes.get(accountId);
    if (!state || state.minute !== minute) {
      state = { minute, count: 0 };
      this.minutes.set(accountId, state);
    }
    const limit = this.settings.requestsPerMinute;
    const allowed = state.count < limit;
    if (allowed) state.count += 1;
    return {
      allowed,
      count: state.count,
      limit,
      resetUnixSeconds: minuteEndUnixSeconds(now),
      retryAfterSeconds: secondsToMinuteEnd(now),
    };
  }

  async acquirePlace(accountId: string, requestId: string): Promise<PlaceGrant> {
    const now = this.now();
    const limit = this.settings.concurrentPlaces;
    const state = this.livePlaces(accountId, now) ?? { held: new Map<string, number>(), lastGrantMs: now };
    if (!state.held.has(requestId) && state.held.size >= limit) return { granted: false, limit };
    state.held.set(requestId, now);
    state.lastGrantMs = now;
    this.places.set(accountId, state);
    return { granted: true, limit };
  }

  async releasePlace(accountId: string, requestId: string, tokens: number): Promise<{ released: boolean }> {
    const now = this.now();
    const released = this.livePlaces(accountId, now)?.held.delete(requestId) ?? false;
    const day = dayOf(now);
    const usage = this.usage.get(accountId) ?? { day, todayTokens: 0, totalTokens: 0 };
    if (usage.day !== day) {
      usage.day = day;
      usage.todayTokens = 0;
    }
    usage.todayTokens += tokens;
    usage.totalTokens += tokens;
    this.usage.set(accountId, usage);
    return { released };
  }

  async getUsage(accountId: string): Promise<UsageTotals> {
    const usage = this.usage.get(accountId);
    if (!usage) return { todayTokens: 0, totalTokens: 0 };
    return { todayTokens: usage.day === dayOf(this.now()) ? usage.todayTokens : 0, totalTokens: usage.totalTokens };
  }

  async close(): Promise<void> {
    this.minutes.clear();
    this.places.clear();
    this.usage.clear();
  }

  /** The account's places, or undefined when none was granted within the recovery time (they cleared). */
  private livePlaces(accountId: string, now: number): PlaceState | undefined {
    const state = this.places.get(accountId);
    if (state && now - state.lastGrantMs < this.settings.placeRecoveryMs) return state;
    this.places.delete(accountId);
    return undefined;
  }

  /** Once per minute, forgets past minutes and cleared places so that memory stays bounded. */
  private sweep(now: number): void {
    const minute = minuteOf(now);
    if (minute === this.sweptMinute) return;
    this.sweptMinute = minute;
    for (const [id, state] of this.minutes) if (state.minute !== minute) this.minutes.delete(id);
    for (const id of [...this.places.keys()]) this.livePlaces(id, now);
  }
}
