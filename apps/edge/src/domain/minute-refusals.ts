import { performance } from 'node:perf_hooks';
import { quotaV1 } from '@gw/contracts';

/**
 * A remembered refusal ends this long before the end of its minute as the edge reckons it: room
 * for two clocks that do not tick at quite the same rate, and for Redis TIME read in whole ms.
 */
export const REFUSAL_MARGIN_MS = 50;

/** Redis's minute is at most this long; an answer that says otherwise is not remembered. */
const MINUTE_MS = 60_000;

/** A count answer as the route reads it: quota-service's figures, without Redis's time (none when the edge refused itself). */
export type MinuteCount = Omit<quotaV1.CountRequestResponse, 'nowUnixMs'>;

interface Refusal {
  accountId: string;
  /** The edge refuses the account itself while its clock is below this. */
  untilMs: number;
  /** The latest the minute can end, by the edge's clock: Retry-After counts down to it. */
  minuteEndMs: number;
  limit: number;
  resetUnixSeconds: number;
}

/**
 * Accounts quota-service refused in the current clock minute, which the edge then refuses itself
 * (429 rate_limit_error) until that minute ends, without a call, as envoy ratelimit's local cache
 * of over-the-limit keys does (docs/architecture.md#one-request-start-to-end).
 *
 * It is exact. Within a minute counts only grow, whoever counts (every edge, the chat product),
 * and a refusal writes nothing (COUNT_REQUEST in quota-service's store/limits/limit-scripts.ts), so an account
 * refused once stays refused until Redis's minute ends. That end is reckoned by Redis's clock,
 * not the edge's: the answer carries Redis's time (now_unix_ms), and Redis counted after the edge
 * asked, so "asked at + (minute end - Redis's time)" on the edge's clock is never after the real
 * end; the refusal stops REFUSAL_MARGIN_MS before that. Retry-After counts to the same end
 * reckoned from when the answer came back instead, never before the real end, so it is the
 * answer quota-service would give (one second more only within a round trip of a second's turn).
 * An answer without Redis's time (from a quota-service older than the field) is not remembered.
 *
 * The edge's clock here is monotonic, so a step of the wall clock changes nothing. At most
 * `maxEntries` accounts are held: when full, the refusal that would end soonest makes room for
 * one that ends later. Ended refusals are dropped whenever a refusal is added or an ended one is
 * asked for. Asking about an account costs one Map lookup.
 */
export class MinuteRefusals {
  private readonly byAccount = new Map<string, Refusal>();
  /** The same refusals as a binary min-heap on untilMs, the soonest to end first. */
  private readonly bySoonest: Refusal[] = [];

  constructor(
    private readonly maxEntries: number,
    private readonly now: () => number = performance.now.bind(performance),
  ) {}

  /** Accounts refused now or not forgotten yet. */
  get size(): number {
    return this.byAccount.size;
  }

  /** Taken just before asking quota-service: Redis counts the request no sooner than this. */
  ticket(): number {
    return this.now();
  }

  /**
   * The answer quota-service would give a request of `accountId` now, when the edge refuses it
   * itself; undefined when quota-service must be asked.
   */
  refusal(accountId: string): MinuteCount | undefined {
    const refusal = this.byAccount.get(accountId);
    if (refusal === undefined) return undefined;
    const now = this.now();
    if (now >= refusal.untilMs) {
      this.forgetEnded(now);
      return undefined;
    }
    return {
      allowed: false,
      limit: refusal.limit,
      remaining: 0,
      resetUnixSeconds: refusal.resetUnixSeconds,
      retryAfterSeconds: Math.ceil((refusal.minuteEndMs - now) / 1000),
    };
  }

  /**
   * Remembers `answer`, quota-service's answer for `accountId` to a count asked at `ticket`, when
   * it is a refusal that carries Redis's time. An account already remembered keeps its refusal.
   */
  remember(accountId: string, answer: quotaV1.CountRequestResponse, ticket: number): void {
    if (answer.allowed || answer.nowUnixMs <= 0) return;
    const leftMs = answer.resetUnixSeconds * 1000 - answer.nowUnixMs;
    if (leftMs <= 0 || leftMs > MINUTE_MS) return;
    const now = this.now();
    this.forgetEnded(now);
    const untilMs = ticket + leftMs - REFUSAL_MARGIN_MS;
    if (untilMs <= now || this.byAccount.has(accountId)) return;
    if (this.byAccount.size >= this.maxEntries) {
      // Full: the refusal that would end soonest goes, which may be this new one.
      if (this.bySoonest.length === 0 || this.bySoonest[0].untilMs >= untilMs) return;
      this.byAccount.delete(this.pop().accountId);
    }
    const refusal: Refusal = {
      accountId,
      untilMs,
      minuteEndMs: now + leftMs,
      limit: answer.limit,
      resetUnixSeconds: answer.resetUnixSeconds,
    };
    this.byAccount.set(accountId, refusal);
    this.push(refusal);
  }

  private forgetEnded(now: number): void {
    while (this.bySoonest.length > 0 && this.bySoonest[0].untilMs <= now) this.byAccount.delete(this.pop().accountId);
  }

  private push(refusal: Refusal): void {
    const heap = this.bySoonest;
    let i = heap.push(refusal) - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent].untilMs <= refusal.untilMs) break;
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = refusal;
  }

  /** Takes the soonest to end off the heap (which is not empty). */
  private pop(): Refusal {
    const heap = this.bySoonest;
    const soonest = heap[0];
    const last = heap.pop() as Refusal;
    if (heap.length === 0) return soonest;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= heap.length) break;
      if (child + 1 < heap.length && heap[child + 1].untilMs < heap[child].untilMs) child++;
      if (heap[child].untilMs >= last.untilMs) break;
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = last;
    return soonest;
  }
}
