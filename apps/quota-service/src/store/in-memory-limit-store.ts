import { dayOf, minuteEndUnixSeconds, minuteOf, secondsToMinuteEnd } from './clock-windows';
import { FINISH_MEMORY_MS, FinishedRequest, LimitSettings, LimitStore, MinuteCount, PlaceGrant, UsageTotals } from './limit-store';

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
  /** Account -> request id -> time it was finished. */
  private readonly finished = new Map<string, Map<string, number>>();
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
      nowMs: now,
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
    const released = this.freePlace(accountId, requestId, now);
    this.addUsage(accountId, tokens, now);
    return { released };
  }

  async finishRequest(accountId: string, requestId: string, tokens: number): Promise<FinishedRequest> {
    const now = this.now();
    const finished = this.finished.get(accountId) ?? new Map<string, number>();
    const before = finished.get(requestId);
    if (before !== undefined && now - before < FINISH_MEMORY_MS) return { released: false, repeated: true };
    finished.set(requestId, now);
    this.finished.set(accountId, finished);
    const released = this.freePlace(accountId, requestId, now);
    this.addUsage(accountId, tokens, now);
    return { released, repeated: false };
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
    this.finished.clear();
  }

  private freePlace(accountId: string, requestId: string, now: number): boolean {
    return this.livePlaces(accountId, now)?.held.delete(requestId) ?? false;
  }

  private addUsage(accountId: string, tokens: number, now: number): void {
    const day = dayOf(now);
    const usage = this.usage.get(accountId) ?? { day, todayTokens: 0, totalTokens: 0 };
    if (usage.day !== day) {
      usage.day = day;
      usage.todayTokens = 0;
    }
    usage.todayTokens += tokens;
    usage.totalTokens += tokens;
    this.usage.set(accountId, usage);
  }

  /** The account's places, or undefined when none was granted within the recovery time (they cleared). */
  private livePlaces(accountId: string, now: number): PlaceState | undefined {
    const state = this.places.get(accountId);
    if (state && now - state.lastGrantMs < this.settings.placeRecoveryMs) return state;
    this.places.delete(accountId);
    return undefined;
  }

  /** Once per minute, forgets past minutes, cleared places and old finished ids so that memory stays bounded. */
  private sweep(now: number): void {
    const minute = minuteOf(now);
    if (minute === this.sweptMinute) return;
    this.sweptMinute = minute;
    for (const [id, state] of this.minutes) if (state.minute !== minute) this.minutes.delete(id);
    for (const id of [...this.places.keys()]) this.livePlaces(id, now);
    for (const [id, finished] of this.finished) {
      for (const [requestId, at] of finished) if (now - at >= FINISH_MEMORY_MS) finished.delete(requestId);
      if (finished.size === 0) this.finished.delete(id);
    }
  }
}
