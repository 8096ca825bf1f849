import type { RedisConnection } from '../redis/redis-connection';
import {
  ADMIT,
  ADMIT_REPLY,
  ADOPT_LINE,
  BILL_STATES,
  BILL_STATE_REPLY,
  FINISH_ADMITTED,
  READ_CREDIT,
  READ_TERMS,
  RESURRECT_LEASE,
  RETURN_LINE,
} from './admission-scripts';
import { parseAdmissionTerms, termsOf } from './admission-terms';
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
  TermsField,
} from './admission-store';
import { minuteCountAt } from '../clock-windows';
import { SETTLE_BUDGET } from '../free-tier/free-tier-scripts';
import { LeaseRecord, LeaseRef } from '../leases/lease-store';
import { FINISH_MEMORY_MS, LimitSettings } from '../limits/limit-store';
import { DeclaredScript, Named } from '../redis/lua-script';
import { poolHoldId } from '../free-tier/pool-hold-id';
import { RedisKeys } from '../redis/redis-keys';
import type { OutboxAppends } from '../outbox/redis-bill-outbox';
import { runScript, ScriptRest } from '../redis/run-script';
import { lowestOf } from '../redis/shard-walk';
import { readDue } from '../redis/due-members';
import { ShardDueTimes } from '../redis/shard-due-times';
import { StoreUnavailableError } from '../store-unavailable-error';

/** Options of a RedisAdmissionStore. */
export interface RedisAdmissionStoreOptions {
  /** The key names (QUOTA_KEY_LAYOUT, REDIS_KEY_PREFIX). */
  keys: RedisKeys;
  /** Tests only: a clock (ms) passed to the scripts instead of Redis TIME. */
  now?: () => number;
  /**
   * Told the account before and after each script that can append to its shard's outbox (a
   * finish, a line's return) is run, whatever it answers: the outbox looks there at its next claim.
   * A bill it acknowledged lately stands applied without asking Redis (billStates).
   */
  outboxAppends?: OutboxAppends;
}

const REFUSED_FIELDS: Record<number, TermsField> = { 1: 'payment', 2: 'model', 3: 'hold', 4: 'admitted_at', 5: 'admitted' };
const RESURRECTED: Record<number, ResurrectOutcome> = { 0: 'finished', 1: 'exists', 2: 'resurrected' };
const BILL_STATE_NAMES: Record<number, BillState> = {
  [BILL_STATE_REPLY.unfinished]: 'unfinished',
  [BILL_STATE_REPLY.pending]: 'pending',
  [BILL_STATE_REPLY.applied]: 'applied',
};

/**
 * An AdmissionStore in Redis, shared by every replica: each step is one script (admission-scripts.ts),
 * one round trip, on the account's keys and its shard's indexes; a free request's end takes a
 * second one for the free tier's pool, in its own slot. The keys of each script are named here
 * (store/redis/redis-keys.ts), none inside the scripts. Idle lines are looked for in every shard that
 * can have one at once (ShardDueTimes). The client is shared; RedisLimitStore closes it. Any
 * failure becomes StoreUnavailableError.
 */
export class RedisAdmissionStore implements AdmissionStore {
  /** When each shard can next have an idle line. */
  private readonly idleTimes: ShardDueTimes;

  constructor(
    private readonly redis: RedisConnection,
    private readonly settings: Readonly<LimitSettings>,
    private readonly options: RedisAdmissionStoreOptions,
  ) {
    this.idleTimes = new ShardDueTimes(options.keys.shards.length, options.now);
  }

  async admit(step: AdmitStep): Promise<AdmitResult> {
    const a = this.options.keys.account(step.accountId);
    const keys = {
      minute: a.minute,
      places: a.places,
      last_grant: a.lastGrant,
      credit: a.credit,
      finished: a.finished,
      lease_lapse: a.shard.leases.lapse,
      lease_data: a.shard.leases.data,
      active_lines: a.shard.activeLines,
      unbilled: a.unbilled,
      admissions: a.admissions,
      previous_holds: a.previousReleaseHolds,
    };
    const merge = step.merge;
    const args = {
      rid: step.requestId,
      account: step.accountId,
      mode: step.mode,
      per_minute: this.settings.requestsPerMinute,
      place_limit: this.settings.concurrentPlaces,
      recovery_ms: this.settings.placeRecoveryMs,
      lease_ttl: step.leaseTtlMs,
      payment: step.payment,
      worst_micro: step.worstMicro,
      merge_granted: merge?.granted ?? '',
      merge_charged: merge?.charged ?? '',
      merge_returned: merge?.returned ?? '',
      lease_json: JSON.stringify(step.lease),
      memory_ms: FINISH_MEMORY_MS,
      terms_json: JSON.stringify(termsOf(step)),
    };
    const reply = await this.run(ADMIT, keys, args, 3);
    const [answer, countNow, now] = reply;
    const count = minuteCountAt(answer !== ADMIT_REPLY.rateLimited, countNow, this.settings.requestsPerMinute, now);
    switch (answer) {
      case ADMIT_REPLY.admitted:
        return reply[3] === 1
          ? { outcome: 'admitted', count, repeated: true, repeatedHoldMicro: reply[4] >= 0 ? reply[4] : undefined, admittedAtMs: reply[5] }
          : { outcome: 'admitted', count, repeated: false, admittedAtMs: reply[5] };
      case ADMIT_REPLY.rateLimited:
        return { outcome: 'rate-limited', count };
      case ADMIT_REPLY.gone:
        return { outcome: 'gone', count };
      case ADMIT_REPLY.notCovered:
        return { outcome: 'not-covered', count, credit: { granted: reply[3], charged: reply[4], returned: reply[5], held: reply[6] } };
      case ADMIT_REPLY.noPlace:
        return { outcome: 'no-place', count, placeLimit: this.settings.concurrentPlaces };
      default:
        throw new StoreUnavailableError(new Error(`unexpected admit reply ${answer}`));
    }
  }

  async terms(request: LeaseRef): Promise<AdmissionTerms | undefined> {
    const a = this.options.keys.account(request.accountId);
    let text: unknown;
    try {
      text = await READ_TERMS.run(
        this.redis,
        READ_TERMS.keyList({ admissions: a.admissions, lapse_estimates: a.lapseEstimates }),
        READ_TERMS.argList({ rid: request.requestId }),
      );
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
    return typeof text === 'string' ? parseAdmissionTerms(text) : undefined;
  }

  async finish(f: FinishStep): Promise<FinishStepDone> {
    const a = this.options.keys.account(f.accountId);
    const keys = {
      places: a.places,
      last_grant: a.lastGrant,
      today: a.usageToday,
      total: a.usageTotal,
      finished: a.finished,
      credit: a.credit,
      lease_lapse: a.shard.leases.lapse,
      lease_data: a.shard.leases.data,
      outbox: a.shard.outbox,
      free_budget: a.freeBudget,
      free_holds: a.freeHolds,
      free_expiry: a.freeExpiry,
      lapse_estimates: a.lapseEstimates,
      unbilled: a.unbilled,
      admissions: a.admissions,
      previous_holds: a.previousReleaseHolds,
    };
    const said = f.restated;
    const args = {
      rid: f.requestId,
      tokens_used: f.tokens,
      recovery: this.settings.placeRecoveryMs,
      memory_ms: FINISH_MEMORY_MS,
      payment: f.payment,
      admitted: f.admitted ? 1 : 0,
      charge_micro: f.chargeMicro,
      bill_json: f.bill ? JSON.stringify(f.bill) : '',
      usage: f.lapsed ? 'lapse' : f.usageEstimated ? '' : 'real',
      said_payment: said?.payment ?? '',
      said_model: said?.model ?? '',
      said_hold: said?.hold ? `${said.hold.amountMicro} ${said.hold.inputMicroPerMillion} ${said.hold.outputMicroPerMillion}` : '',
      said_at: said?.admittedAtMs ?? '',
    };
    if (f.bill) this.options.outboxAppends?.noteBill(f.requestId);
    const [released, repeated, shortfallMicro, refused] = await this.appending(f.accountId, () => this.run(FINISH_ADMITTED, keys, args, 4));
    if (refused > 0) return { released: false, repeated: false, shortfallMicro: 0, refused: REFUSED_FIELDS[refused] };
    // The pool is in its own slot: a second script. It runs again on a repeat, so that a finish
    // retried after this step failed completes it (settling a reservation is once per request id).
    if (f.payment === 'free' || !f.admitted) {
      const pool = this.options.keys.freeTier;
      await this.run(
        SETTLE_BUDGET,
        { budget: pool.poolBudget, holds: pool.poolHolds, expiry: pool.poolExpiry },
        { id: poolHoldId(f.accountId, f.requestId), tokens: f.admitted ? f.tokens : 0 },
        1,
      );
    }
    return { released: released === 1, repeated: repeated === 1, shortfallMicro };
  }

  async returnLine(accountId: string, idleMs?: number): Promise<LineReturn> {
    const a = this.options.keys.account(accountId);
    const keys = { credit: a.credit, active_lines: a.shard.activeLines, outbox: a.shard.outbox };
    const args = { account: accountId, account_json: JSON.stringify(accountId), idle_ms: idleMs ?? '' };
    const [returnedMicro, heldMicro, returnedTotalMicro] = await this.appending(accountId, () => this.run(RETURN_LINE, keys, args, 3));
    return { returnedMicro, heldMicro, returnedTotalMicro };
  }

  /**
   * The idle lines of every shard that can have one (a line is scored with the time of its last
   * admission or grant, never earlier: a shard is read again once its oldest line can be idle, and
   * every half idle time at least), asked at once; the `max` longest idle of them all.
   */
  async idleLines(idleMs: number, max: number): Promise<string[]> {
    const clock = this.options.now ? Math.floor(this.options.now()) : undefined;
    const shards = this.options.keys.shards;
    try {
      const idle = await Promise.all(
        this.idleTimes.due().map(async (index) => {
          const sentAt = this.idleTimes.clock();
          const read = await readDue(this.redis, index, shards[index].activeLines, idleMs, max, clock);
          this.idleTimes.read(index, sentAt, read, Math.floor(idleMs / 2));
          return read.due;
        }),
      );
      return lowestOf(idle, max).map((line) => line.member);
    } catch (err) {
      throw new StoreUnavailableError(err);
    }
  }

  async resurrect(lease: LeaseRecord, ttlMs: number): Promise<ResurrectOutcome> {
    const a = this.options.keys.account(lease.accountId);
    const keys = {
      finished: a.finished,
      lease_lapse: a.shard.leases.lapse,
      lease_data: a.shard.leases.data,
      credit: a.credit,
      admissions: a.admissions,
      active_lines: a.shard.activeLines,
      previous_holds: a.previousReleaseHolds,
    };
    const args = {
      rid: lease.requestId,
      lease_ttl: ttlMs,
      lease_json: JSON.stringify(lease),
      memory_ms: FINISH_MEMORY_MS,
      hold_micro: lease.payment === 'paid' && lease.hold ? lease.hold.amountMicro : '',
      account: lease.accountId,
    };
    const [outcome] = await this.run(RESURRECT_LEASE, keys, args, 1);
    return RESURRECTED[outcome];
  }

  async adoptLine(accountId: string, totals: LineTotals): Promise<boolean> {
    const a = this.options.keys.account(accountId);
    const [adopted] = await this.run(
      ADOPT_LINE,
      { credit: a.credit, active_lines: a.shard.activeLines, unbilled: a.unbilled },
      { account: accountId, granted: totals.granted, charged: totals.charged, returned: totals.returned },
      1,
    );
    return adopted === 1;
  }

  async billStates(requests: readonly LeaseRef[]): Promise<BillState[]> {
    // A bill this replica's outbox acknowledged lately is applied (its unbilled mark cleared);
    // the others by one script per shard (one slot each), all sent at once.
    const states = new Array<BillState>(requests.length);
    const byShard = new Map<string, number[]>();
    requests.forEach((request, i) => {
      if (this.options.outboxAppends?.acknowledged(request.requestId)) {
        states[i] = 'applied';
        return;
      }
      const shard = this.options.keys.account(request.accountId).shard.activeLines;
      byShard.set(shard, [...(byShard.get(shard) ?? []), i]);
    });
    await Promise.all(
      [...byShard.values()].map(async (indexes) => {
        const keys = indexes.flatMap((i) => {
          const a = this.options.keys.account(requests[i].accountId);
          return [a.finished, a.unbilled];
        });
        const ids = indexes.map((i) => requests[i].requestId);
        const replies = await this.run(BILL_STATES, {}, { memory_ms: FINISH_MEMORY_MS }, indexes.length, { keys, args: ids });
        indexes.forEach((i, k) => (states[i] = BILL_STATE_NAMES[replies[k]]));
      }),
    );
    return states;
  }

  async credit(accountId: string): Promise<CreditTotals> {
    const [granted, charged, returned, held] = await this.run(READ_CREDIT, { credit: this.options.keys.account(accountId).credit }, {}, 4);
    return { granted, charged, returned, held };
  }

  /** Runs a script that can append to the account's outbox, telling the outbox before and after. */
  private async appending<T>(accountId: string, script: () => Promise<T>): Promise<T> {
    this.options.outboxAppends?.noteAppend(accountId);
    try {
      return await script();
    } finally {
      this.options.outboxAppends?.noteAppend(accountId);
    }
  }

  private run<K extends string, A extends string>(
    script: DeclaredScript<K, A>,
    keys: Named<K, string>,
    args: Named<A, string | number>,
    replyLength: number,
    rest?: ScriptRest,
  ): Promise<number[]> {
    return runScript(this.redis, script, keys, args, replyLength, this.options.now, rest);
  }
}
