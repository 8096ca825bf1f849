import { dayOf, minuteCountAt, minuteOf } from '../clock-windows';
import {
  ANY_CALLER,
  EDGE_CALLER,
  FINISH_MEMORY_MS,
  FinishedRequest,
  LimitSettings,
  LimitStore,
  MinuteCount,
  PlaceAsk,
  PlaceCaller,
  PlaceGrant,
  ReleasedPlace,
  UsageTotals,
} from './limit-store';
import { EDGE_ASK, placeGrant } from './place-grant';

interface MinuteState {
  minute: number;
  count: number;
  /** The chat product's counted turns not yet placed (see LimitStore.countRequest). */
  turns: number;
}

interface PlaceState {
  /** Request id -> time its place was granted. */
  held: Map<string, number>;
  /** Request id -> who took its place, when not the edge. */
  takers: Map<string, PlaceCaller>;
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

  async countRequest(accountId: string, chatTurn = false): Promise<MinuteCount> {
    const now = this.now();
    const limit = this.settings.requestsPerMinute;
    const count = this.minuteCount(accountId, now);
    if (count >= limit) return minuteCountAt(false, count, limit, now);
    const counted = this.countOne(accountId, now);
    if (chatTurn) this.addTurns(accountId, 1);
    return minuteCountAt(true, counted, limit, now);
  }

  async acquirePlace(accountId: string, requestId: string, ask: PlaceAsk = EDGE_ASK): Promise<PlaceGrant> {
    const now = this.now();
    const limit = this.settings.concurrentPlaces;
    if (this.anotherCallers(accountId, requestId, ask.caller, now)) return placeGrant('another-callers', limit, undefined);
    const held = this.livePlaces(accountId, now)?.held.has(requestId) ?? false;
    let count: MinuteCount | undefined;
    if (ask.countsTurn) {
      count = this.countTurn(accountId, held, now);
      if (!count.allowed) return placeGrant('rate-limited', limit, count);
    }
    if (!held && this.placesFull(accountId, now)) return placeGrant('no-place', limit, count);
    this.takePlace(accountId, requestId, now, ask.caller);
    return placeGrant('granted', limit, count);
  }

  async releasePlace(accountId: string, requestId: string, tokens: number, caller: PlaceCaller = ANY_CALLER): Promise<ReleasedPlace> {
    const now = this.now();
    if (this.anotherCallers(accountId, requestId, caller, now)) return { released: false, refused: true };
    const released = this.freePlace(accountId, requestId, now, caller);
    this.addUsage(accountId, tokens, now);
    return { released, refused: false };
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
    this.minutes.set(accountId, { minute: minuteOf(now), count, turns: this.turnsLeft(accountId, now) });
    return count;
  }

  /** The chat product's counted turns not yet placed, in the account's minute of `now`. */
  private turnsLeft(accountId: string, now: number): number {
    const state = this.minutes.get(accountId);
    return state?.minute === minuteOf(now) ? state.turns : 0;
  }

  /** Adds `turns` (1, or -1 when one is placed) to the counted turns of the account's current minute (countOne made it). */
  private addTurns(accountId: string, turns: number): void {
    const state = this.minutes.get(accountId);
    if (state) state.turns += turns;
  }

  /** Whether every place of the account is held (places that cleared are none). */
  placesFull(accountId: string, now: number): boolean {
    return (this.livePlaces(accountId, now)?.held.size ?? 0) >= this.settings.concurrentPlaces;
  }

  /** Gives the request a place in the name of `caller` (the edge's when not given), moving the last grant to `now`. */
  takePlace(accountId: string, requestId: string, now: number, caller: PlaceCaller = EDGE_CALLER): void {
    const state = this.livePlaces(accountId, now) ?? {
      held: new Map<string, number>(),
      takers: new Map<string, PlaceCaller>(),
      lastGrantMs: now,
    };
    state.held.set(requestId, now);
    if (caller === ANY_CALLER || caller === EDGE_CALLER) state.takers.delete(requestId);
    else state.takers.set(requestId, caller);
    state.lastGrantMs = now;
    this.places.set(accountId, state);
  }

  /**
   * Frees the request's place for `caller` (the edge when not given); false when it held none (or
   * the places cleared), or another caller took it (it stays).
   */
  freePlace(accountId: string, requestId: string, now: number, caller: PlaceCaller = EDGE_CALLER): boolean {
    if (this.anotherCallers(accountId, requestId, caller, now)) return false;
    const state = this.livePlaces(accountId, now);
    state?.takers.delete(requestId);
    return state?.held.delete(requestId) ?? false;
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

  /** Whether the request id holds a place that another caller than `caller` took (ANY_CALLER: none is another's). */
  private anotherCallers(accountId: string, requestId: string, caller: PlaceCaller, now: number): boolean {
    const state = this.livePlaces(accountId, now);
    if (!state?.held.has(requestId) || caller === ANY_CALLER) return false;
    return (state.takers.get(requestId) ?? EDGE_CALLER) !== caller;
  }

  /** Counts the chat product's turn, unless its request holds its place already or a counted turn of the minute is left. */
  private countTurn(accountId: string, held: boolean, now: number): MinuteCount {
    const limit = this.settings.requestsPerMinute;
    const count = this.minuteCount(accountId, now);
    if (held) return minuteCountAt(true, count, limit, now);
    if (this.turnsLeft(accountId, now) > 0) {
      this.addTurns(accountId, -1);
      return minuteCountAt(true, count, limit, now);
    }
    if (count >= limit) return minuteCountAt(false, count, limit, now);
    return minuteCountAt(true, this.countOne(accountId, now), limit, now);
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
