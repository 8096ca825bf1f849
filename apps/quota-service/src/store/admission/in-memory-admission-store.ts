import { disagreement, termsOf } from './admission-terms';
import {
  AdmissionStore,
  AdmissionTerms,
  AdmitResult,
  AdmitStep,
  FinishStep,
  FinishStepDone,
  BillState,
  CreditTotals,
  LineReturn,
  LineTotals,
  ResurrectOutcome,
} from './admission-store';
import { minuteCountAt } from '../clock-windows';
import { InMemoryFreeTierStore } from '../free-tier/in-memory-free-tier-store';
import { InMemoryLeaseStore } from '../leases/in-memory-lease-store';
import { InMemoryLimitStore } from '../limits/in-memory-limit-store';
import { InMemoryBillOutbox } from '../outbox/in-memory-bill-outbox';
import { LeaseRecord, LeaseRef } from '../leases/lease-store';
import { LimitSettings } from '../limits/limit-store';

/** The in-memory stores an InMemoryAdmissionStore shares its state with. */
export interface InMemoryStores {
  limits: InMemoryLimitStore;
  leases: InMemoryLeaseStore;
  outbox: InMemoryBillOutbox;
  freeTier: InMemoryFreeTierStore;
}

const available = (c: CreditTotals): number => c.granted - c.charged - c.returned - c.held;

/**
 * The in-memory twin of the admission scripts (admission-scripts.ts), for `npm start` without
 * Redis and for tests: one replica only, lost on restart. Each step runs without an await, so
 * Node's one thread makes it as atomic as a script; counts, places, leases, the outbox and the
 * free allowance are those of the other in-memory stores, so the chat product's calls share them.
 */
export class InMemoryAdmissionStore implements AdmissionStore {
  private readonly lines = new Map<string, CreditTotals>();
  /** Account -> request id -> micro-LYD held. */
  private readonly holds = new Map<string, Map<string, number>>();
  /** Account -> ms of its last paid admission or line grant. */
  private readonly active = new Map<string, number>();
  /** Request id -> the charge and tokens the reaper took from an estimate (request ids of admitted requests are the edge's, unique). */
  private readonly estimates = new Map<string, { chargeMicro: number; tokens: number }>();
  /** Request id -> what Admit fixed (kept past an estimate, for the real bill that corrects it). */
  private readonly admissions = new Map<string, AdmissionTerms>();

  constructor(
    private readonly stores: InMemoryStores,
    private readonly settings: Readonly<LimitSettings>,
    private readonly now: () => number = Date.now,
  ) {}

  async admit(step: AdmitStep): Promise<AdmitResult> {
    const { limits, leases } = this.stores;
    const { accountId, requestId } = step;
    const now = this.now();
    const countOf = (allowed: boolean, count: number) => minuteCountAt(allowed, count, this.settings.requestsPerMinute, now);
    if (leases.has(requestId)) {
      return {
        outcome: 'admitted',
        count: countOf(true, limits.minuteCount(accountId, now)),
        repeated: true,
        repeatedHoldMicro: this.holds.get(accountId)?.get(requestId),
        admittedAtMs: this.admissions.get(requestId)?.admittedAtMs ?? now,
      };
    }
    let counted = limits.minuteCount(accountId, now);
    if (step.mode === 'count') {
      if (counted >= this.settings.requestsPerMinute) return { outcome: 'rate-limited', count: countOf(false, counted) };
      counted = limits.countOne(accountId, now);
    }
    const count = countOf(true, counted);
    if (limits.isFinished(accountId, requestId, now)) return { outcome: 'gone', count };
    const paid = step.payment === 'paid';
    if (paid) {
      let line = this.line(accountId);
      if (step.merge && line.granted === 0 && this.stores.outbox.hasUnbilled(accountId)) {
        // A line the store lost, its bills queued again waiting: billing's charged total lacks them (ADMIT).
        const { granted, charged, returned } = step.merge;
        line = { granted, charged: line.charged + charged, returned: Math.max(line.returned, returned), held: line.held };
      } else if (step.merge) {
        if (step.merge.granted > line.granted) this.active.set(accountId, now);
        line.granted = Math.max(line.granted, step.merge.granted);
        line.charged = Math.max(line.charged, step.merge.charged);
        line.returned = Math.max(line.returned, step.merge.returned);
      }
      if (available(line) < step.worstMicro) return { outcome: 'not-covered', count, credit: { ...line } };
    }
    if (limits.placesFull(accountId, now)) return { outcome: 'no-place', count, placeLimit: this.settings.concurrentPlaces };
    if (paid) {
      this.line(accountId).held += step.worstMicro;
      this.holdsOf(accountId).set(requestId, step.worstMicro);
      this.active.set(accountId, now);
    }
    limits.takePlace(accountId, requestId, now);
    leases.put(step.lease, step.leaseTtlMs, now);
    this.admissions.set(requestId, { ...termsOf(step), admittedAtMs: now });
    return { outcome: 'admitted', count, repeated: false, admittedAtMs: now };
  }

  async terms(request: LeaseRef): Promise<AdmissionTerms | undefined> {
    const terms = this.admissions.get(request.requestId);
    return terms && { ...terms };
  }

  async finish(f: FinishStep): Promise<FinishStepDone> {
    const { limits, leases, outbox, freeTier } = this.stores;
    const now = this.now();
    const record = this.admissions.get(f.requestId);
    const answered = !f.admitted && leases.get(f.requestId)?.admittedAtMs !== undefined;
    const refused = answered ? 'admitted' : record && f.restated && disagreement(record, f.restated);
    if (refused) return { released: false, repeated: false, shortfallMicro: 0, refused };
    // A bill without its admitted time or its key gets the record's, as FINISH_ADMITTED gives them.
    const keyId = f.bill?.keyId ?? record?.keyId;
    const bill =
      f.bill && record ? { ...f.bill, admittedAtMs: f.bill.admittedAtMs ?? record.admittedAtMs, ...(keyId ? { keyId } : {}) } : f.bill;
    f = { ...f, bill };
    if (limits.isFinished(f.accountId, f.requestId, now)) {
      if (f.payment === 'free' || !f.admitted) freeTier.settleAt(f.accountId, f.requestId, f.admitted ? f.tokens : 0, now);
      const estimated = this.estimates.get(f.requestId);
      let shortfallMicro = 0;
      if (estimated !== undefined && f.admitted && !f.lapsed && !f.usageEstimated) {
        this.estimates.delete(f.requestId);
        this.admissions.delete(f.requestId);
        limits.addUsage(f.accountId, f.tokens - estimated.tokens, now);
        if (f.payment === 'paid' && f.chargeMicro > estimated.chargeMicro) {
          // The line's totals move as billing-service moves them for the correction (all of it
          // charged, the line extended by what its unheld part lacks), so that both keep one line.
          const line = this.line(f.accountId);
          const more = f.chargeMicro - estimated.chargeMicro;
          shortfallMicro = more - Math.min(more, Math.max(available(line), 0));
          line.granted += Math.max(more - (line.granted - line.charged - line.returned), 0);
          line.charged += more;
        }
        if (f.bill) outbox.push(f.bill);
      }
      return { released: false, repeated: true, shortfallMicro };
    }
    limits.markFinished(f.accountId, f.requestId, now);
    const held = this.holds.get(f.accountId)?.get(f.requestId);
    if (held !== undefined) {
      this.holdsOf(f.accountId).delete(f.requestId);
      this.line(f.accountId).held -= held;
    }
    const released = limits.freePlace(f.accountId, f.requestId, now);
    leases.remove(f.requestId);
    if (!(f.lapsed && f.admitted)) this.admissions.delete(f.requestId);
    if (!f.admitted) {
      freeTier.settleAt(f.accountId, f.requestId, 0, now);
      return { released, repeated: false, shortfallMicro: 0 };
    }
    limits.addUsage(f.accountId, f.tokens, now);
    if (f.payment === 'paid') this.line(f.accountId).charged += f.chargeMicro;
    else freeTier.settleAt(f.accountId, f.requestId, f.tokens, now);
    if (f.lapsed) this.estimates.set(f.requestId, { chargeMicro: f.chargeMicro, tokens: f.tokens });
    if (f.bill) outbox.push(f.bill);
    return { released, repeated: false, shortfallMicro: 0 };
  }

  async returnLine(accountId: string, idleMs?: number): Promise<LineReturn> {
    const line = this.line(accountId);
    const last = this.active.get(accountId);
    if (idleMs !== undefined && (last === undefined || this.now() - last < idleMs)) {
      return { returnedMicro: 0, heldMicro: line.held, returnedTotalMicro: line.returned };
    }
    const returnedMicro = Math.max(0, available(line));
    if (returnedMicro > 0) {
      line.returned += returnedMicro;
      this.stores.outbox.push({ kind: 'return', accountId, returnedTotalMicro: line.returned });
    }
    if (line.held <= 0) this.active.delete(accountId);
    return { returnedMicro, heldMicro: line.held, returnedTotalMicro: line.returned };
  }

  async idleLines(idleMs: number, max: number): Promise<string[]> {
    const until = this.now() - idleMs;
    return [...this.active]
      .filter(([, last]) => last <= until)
      .sort((a, b) => a[1] - b[1])
      .slice(0, max)
      .map(([accountId]) => accountId);
  }

  async resurrect(lease: LeaseRecord, ttlMs: number): Promise<ResurrectOutcome> {
    const now = this.now();
    if (this.stores.limits.isFinished(lease.accountId, lease.requestId, now)) return 'finished';
    if (this.stores.leases.has(lease.requestId)) return 'exists';
    this.stores.leases.put(lease, ttlMs, now);
    if (lease.payment === 'paid' && lease.hold && !this.holdsOf(lease.accountId).has(lease.requestId)) {
      this.holdsOf(lease.accountId).set(lease.requestId, lease.hold.amountMicro);
      this.line(lease.accountId).held += lease.hold.amountMicro;
      this.active.set(lease.accountId, now);
    }
    return 'resurrected';
  }

  async adoptLine(accountId: string, totals: LineTotals): Promise<boolean> {
    const known = this.lines.get(accountId);
    if (known && known.granted > 0 && totals.granted <= known.granted) return false;
    if (this.stores.outbox.hasUnbilled(accountId)) return false;
    const line = this.line(accountId);
    line.granted = Math.max(line.granted, totals.granted);
    line.charged = Math.max(line.charged, totals.charged);
    line.returned = Math.max(line.returned, totals.returned);
    if (!this.active.has(accountId)) this.active.set(accountId, this.now());
    return true;
  }

  async billStates(requests: readonly LeaseRef[]): Promise<BillState[]> {
    return requests.map((request) => {
      if (!this.stores.limits.isFinished(request.accountId, request.requestId, this.now())) return 'unfinished';
      return this.stores.outbox.isUnbilled(request.requestId) ? 'pending' : 'applied';
    });
  }

  async credit(accountId: string): Promise<CreditTotals> {
    return { ...(this.lines.get(accountId) ?? { granted: 0, charged: 0, returned: 0, held: 0 }) };
  }

  private line(accountId: string): CreditTotals {
    let line = this.lines.get(accountId);
    if (!line) this.lines.set(accountId, (line = { granted: 0, charged: 0, returned: 0, held: 0 }));
    return line;
  }

  private holdsOf(accountId: string): Map<string, number> {
    let holds = this.holds.get(accountId);
    if (!holds) this.holds.set(accountId, (holds = new Map()));
    return holds;
  }
}
