import {
  HOUR_MS,
  judgeSpend,
  KeyWake,
  mayAlert,
  RaisedAlert,
  SLOT_MS,
  SpendAlert,
  SpendBucket,
  SpendRule,
  UsualSpend,
  usualSpendOf,
} from '@gw/money';
import { MINUTE_MS } from './spend-traffic';

/** The replay's first minute: a Monday, 00:00 UTC. */
export const EPOCH_MS = Date.UTC(2026, 0, 5);
const SLOT_MINUTES = SLOT_MS / MINUTE_MS;
const HOUR_MINUTES = HOUR_MS / MINUTE_MS;
/** A key billed after this long without a bill is recorded as woken (billing-service records the same rests). */
const REST_MINUTES = 60;

/** The Unix ms of a replay minute. */
export const at = (minute: number): number => EPOCH_MS + minute * MINUTE_MS;

/**
 * One account's spend as billing-service keeps it while bills are applied: 5-minute and hourly
 * buckets per key, each key's last bill and its wake after a rest.
 */
export class SpendBooks {
  /** The last history read: bills only ever add to the hour running now, so it holds for that hour. */
  private read: { hour: number; days: number; buckets: SpendBucket[] } | undefined;

  private constructor(
    private readonly slots: Map<string, { spend: Float64Array; requests: Float64Array }>,
    private readonly hours: Map<string, Float64Array>,
    private readonly lastBilled: Map<string, number>,
    private readonly wakes: Map<string, KeyWake>,
  ) {}

  static empty(keys: readonly string[], minutes: number): SpendBooks {
    const slots = new Map(
      keys.map((k) => [k, { spend: new Float64Array(minutes / SLOT_MINUTES), requests: new Float64Array(minutes / SLOT_MINUTES) }]),
    );
    return new SpendBooks(slots, new Map(keys.map((k) => [k, new Float64Array(minutes / HOUR_MINUTES)])), new Map(), new Map());
  }

  /** A copy that later bills do not share (the books of one leak, from its start). */
  copy(): SpendBooks {
    const slots = new Map([...this.slots].map(([k, s]) => [k, { spend: s.spend.slice(), requests: s.requests.slice() }]));
    return new SpendBooks(slots, new Map([...this.hours].map(([k, h]) => [k, h.slice()])), new Map(this.lastBilled), new Map(this.wakes));
  }

  /** Bills of `key` at `minute`: into its buckets, and its wake when it had rested. */
  bill(key: string, minute: number, requests: number, spendMicro: number): void {
    if (requests <= 0) return;
    const slot = this.slots.get(key);
    const hour = this.hours.get(key);
    if (!slot || !hour) throw new Error(`no key ${key}`);
    slot.spend[Math.floor(minute / SLOT_MINUTES)] += spendMicro;
    slot.requests[Math.floor(minute / SLOT_MINUTES)] += requests;
    hour[Math.floor(minute / HOUR_MINUTES)] += spendMicro;
    const last = this.lastBilled.get(key);
    if (last !== undefined && minute - last >= REST_MINUTES)
      this.wakes.set(key, { keyId: key, wokeAtMs: at(minute), restedMs: (minute - last) * MINUTE_MS });
    this.lastBilled.set(key, minute);
  }

  /** Whether the slot holding `minute` has bills. */
  slotBilled(minute: number): boolean {
    const s = Math.floor(minute / SLOT_MINUTES);
    for (const slot of this.slots.values()) if (slot.requests[s] > 0) return true;
    return false;
  }

  /** The buckets of the last hour at `minute` and the keys' wakes: what billing-service reads after a batch. */
  recent(minute: number): BooksRead {
    const last = Math.floor(minute / SLOT_MINUTES);
    const recent: SpendBucket[] = [];
    for (const [keyId, slot] of this.slots)
      for (let s = Math.max(0, last - 11); s <= last; s++)
        if (slot.requests[s] > 0)
          recent.push({ keyId, startMs: at(s * SLOT_MINUTES), spendMicro: slot.spend[s], requests: slot.requests[s] });
    return { recent, wakes: [...this.wakes.values()], mayAlert: new Map() };
  }

  /** The hourly buckets of the `days` before the hour holding `minute` (the rule leaves out the last one itself). */
  history(minute: number, days: number): SpendBucket[] {
    const now = Math.floor(minute / HOUR_MINUTES);
    if (this.read?.hour === now && this.read.days === days) return this.read.buckets;
    const buckets: SpendBucket[] = [];
    for (const [keyId, hour] of this.hours)
      for (let h = Math.max(0, now - days * 24); h < now; h++)
        if (hour[h] > 0) buckets.push({ keyId, startMs: at(h * HOUR_MINUTES), spendMicro: hour[h], requests: 0 });
    this.read = { hour: now, days, buckets };
    return buckets;
  }
}

/** The books read at one minute, and mayAlert's answers for them by the parameters it reads. */
export interface BooksRead {
  recent: SpendBucket[];
  wakes: KeyWake[];
  mayAlert: Map<string, boolean>;
}

/** An alert the replay raised, at minute `minute`. */
export interface ReplayAlert extends SpendAlert {
  minute: number;
}

/** One rule applied to one account's books as billing-service applies it: `mayAlert`, the usual hour read once an hour, `judgeSpend`. */
export class RuleReplay {
  private readonly raised: RaisedAlert[] = [];
  private usual: UsualSpend | undefined;
  readonly alerts: ReplayAlert[] = [];

  constructor(readonly rule: SpendRule) {}

  /**
   * The rule at the end of `minute`, after a batch of bills; the alert it raised, if any. `read`
   * is the books' state then, with the answers of mayAlert so far by the parameters it reads (rules
   * that share them share its answer in a grid).
   */
  judge(books: SpendBooks, minute: number, read: BooksRead): ReplayAlert | undefined {
    const nowMs = at(minute) + MINUTE_MS - 1;
    const facts = { nowMs, recent: read.recent, wakes: read.wakes, raised: this.raised };
    const gate = `${this.rule.floorMicro}|${this.rule.idleMs}|${this.rule.wakeFloorMicro}`;
    const may = read.mayAlert.get(gate) ?? mayAlert(facts, this.rule);
    read.mayAlert.set(gate, may);
    if (!may) return undefined;
    if (this.usual?.hourMs !== nowMs - (nowMs % HOUR_MS))
      this.usual = usualSpendOf(books.history(minute, this.rule.historyDays), nowMs, this.rule);
    const alert = judgeSpend(facts, this.usual, this.rule);
    if (!alert) return undefined;
    // The holder lets each alert be at once: the replay counts how often the rule would bother them.
    this.raised.push({ keyId: alert.keyId, reason: alert.reason, raisedAtMs: nowMs, open: false });
    const raised = { ...alert, minute };
    this.alerts.push(raised);
    return raised;
  }
}
