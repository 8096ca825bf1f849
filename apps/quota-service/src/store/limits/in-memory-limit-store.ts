import { dayOf, minuteCountAt, minuteOf } from '../clock-windows';
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
 * Its synchronous steps (minuteCount, countOne, placesFull, takePlace, freePlace, addUsage,
 * isFinished, markFinished) are for InMemoryAdmissionStore, which composes them into one
 * atomic admission the way a Redis script does.
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
    const limit = this.settings.requestsPerMinute;
    const count = this.minuteCount(accountId, now);
    return count < limit ? minuteCountAt(true, this.countOne(accountId, now), limit, now) : minuteCountAt(false, count, limit, now);
  }

  async acquirePlace(accountId: string, requestId: string): Promise<PlaceGrant> {
    const now = this.now();
    const limit = this.settings.concurrentPlaces;
    if (!this.livePlaces(accountId, now)?.held.has(requestId) && this.placesFull(accountId, now)) return { granted: false, limit };
    this.takePlace(accountId, requestId, now);
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
    if (this.isFinished(accountId, requestId, now)) return { released: false, repeated: true };
    this.markFinished(accountId, requestId, now);
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

  /** The requests counted in the account's minute of `now`. */
  minuteCount(accountId: string, now: number): number {
    this.sweep(now);
    const state = this.minutes.get(accountId);
    return state?.minute === minuteOf(now) ? state.count : 0;
  }

  /** Counts one more request in the account's minute of `now`; returns the new count. */
  countOne(accountId: string, now: number): number {
    const count = this.minuteCount(accountId, now) + 1;
    this.minutes.set(accountId, { minute: minuteOf(now), count });
    return count;
  }

  /** Whether every place of the account is held (places that cleared are none). */
  placesFull(accountId: string, now: number): boolean {
    return (this.livePlaces(accountId, now)?.held.size ?? 0) >= this.settings.concurrentPlaces;
  }

  /** Gives the request a place, moving the last grant to `now`. */
  takePlace(accountId: string, requestId: string, now: number): void {
    const state = this.livePlaces(accountId, now) ?? { held: new Map<string, number>(), lastGrantMs: now };
    state.held.set(requestId, now);
    state.lastGrantMs = now;
    this.places.set(accountId, state);
  }

  /** Frees the request's place; false when it held none (or the places cleared). */
  freePlace(accountId: string, requestId: string, now: number): boolean {
    return this.livePlaces(accountId, now)?.held.delete(requestId) ?? false;
  }

  /** Whether the request id was finished within FINISH_MEMORY_MS before `now`. */
  isFinished(accountId: string, requestId: string, now: number): boolean {
    const at = this.finished.get(accountId)?.get(requestId);
    return at !== undefined && now - at < FINISH_MEMORY_MS;
  }

  /** Remembers the request id as finished at `now`. */
  markFinished(accountId: string, requestId: string, now: number): void {
    const finished = this.finished.get(accountId) ?? new Map<string, number>();
    finished.set(requestId, now);
    this.finished.set(accountId, finished);
  }

  /** Adds the tokens to the account's usage of `now`'s day and all time. */
  addUsage(accountId: string, tokens: number, now: number): void {
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
