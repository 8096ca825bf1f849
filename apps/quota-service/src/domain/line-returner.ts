import { status } from '@grpc/grpc-js';
import { Logger, PeriodicTask, requireId } from '@gw/service-kit';
import { lineReturnedMicro, lineReturns } from '../quota-metrics';
import { AdmissionStore, LineTotals } from '../store/admission/admission-store';
import { OutboxBill, OutboxLineReturn } from '../store/outbox/bill-outbox';
import { DomainError } from '@gw/errors';

/** When lines count as idle, and how the timer looks for them. */
export interface LineReturnOptions {
  /** A line whose account had no paid admission (nor grant) for this long is given back. */
  idleMs: number;
  /** How often the timer looks. */
  intervalMs: number;
  /** Lines looked at per pass at most. */
  batchSize: number;
}

/** A line billing-service has lent now, and its totals (billing.v1 LentCreditLine). */
export type LentLine = LineTotals & { accountId: string };

/**
 * billing-service as the returns see it: applies a return at once (billing.v1 ApplyBills), and
 * lists the lines lent now, a page at a time by account id (billing.v1 ListCreditLines; an older
 * billing-service has none).
 */
export interface ReturnSink {
  applyBills(bills: OutboxBill[], returns: OutboxLineReturn[]): Promise<unknown[]>;
  lentLines?(afterAccountId: string, limit: number): Promise<LentLine[]>;
}

/** Lines asked of billing-service per ListCreditLines call. */
export const LENT_LINES_PAGE = 1000;

/**
 * Gives the unheld part of credit lines back to billing-service (docs/architecture.md#credit-lines):
 * a timer gives back the lines of accounts idle for `idleMs` (through the outbox), and
 * the operator (ReturnCreditLine, before a negative `balance add`) any line at once, delivered to
 * billing-service before the call answers so that the balance change that follows sees it.
 */
export class LineReturner {
  private readonly loop: PeriodicTask;
  private readonly audit: PeriodicTask;

  constructor(
    private readonly store: AdmissionStore,
    private readonly billing: ReturnSink,
    private readonly options: LineReturnOptions,
    private readonly logger: Logger,
  ) {
    this.loop = new PeriodicTask(
      async () => {
        await this.returnIdleOnce();
      },
      {
        intervalMs: options.intervalMs,
        failed: (err) => this.logger.warn('idle credit lines not returned, will retry', { err }),
      },
    );
    const auditMs = Math.max(options.intervalMs, Math.floor(options.idleMs / 2));
    this.audit = new PeriodicTask(
      async () => {
        await this.adoptLostOnce();
      },
      {
        intervalMs: auditMs,
        failed: (err) => this.logger.warn('lent credit lines not checked, will retry', { err }),
      },
    );
  }

  start(): void {
    this.loop.start();
    if (this.billing.lentLines) this.audit.start();
  }

  async stop(): Promise<void> {
    await Promise.all([this.loop.stop(), this.audit.stop()]);
  }

  /**
   * Finds the lines billing-service has lent that the store does not know (Redis restarted empty
   * or failed over: an account that never comes back would keep its line lent forever) and
   * adopts them (AdmissionStore.adoptLine: billing's totals, the account active now), so that the
   * idle timer gives each back once idle, exactly as a line the store always knew: only its
   * unheld part, once its account had no paid admission for the idle time. Requests that were
   * running when the store lost the line hold their part of it again at their first renewal
   * (resurrect), and finished ones whose bills the store lost are charged again at their final
   * renewal, both within seconds, far less than the idle time. Looks every half idle time (at
   * least every interval), all lines a page at a time; returns how many were adopted.
   */
  async adoptLostOnce(): Promise<number> {
    if (!this.billing.lentLines) return 0;
    let adopted = 0;
    for (let after = ''; ;) {
      const lines = await this.billing.lentLines(after, LENT_LINES_PAGE).catch((err: unknown) => {
        // An older billing-service: no lines to look at.
        if ((err as { code?: unknown }).code === status.UNIMPLEMENTED) return [];
        throw err;
      });
      const outcomes = await Promise.all(lines.map((line) => this.store.adoptLine(line.accountId, line)));
      lines.forEach((line, i) => {
        if (outcomes[i])
          this.logger.warn('credit line lent by billing-service unknown to the store, adopted to be given back once idle', {
            accountId: line.accountId,
          });
      });
      adopted += outcomes.filter(Boolean).length;
      if (lines.length < LENT_LINES_PAGE) return adopted;
      after = lines[lines.length - 1].accountId;
    }
  }

  /**
   * Gives back the lines idle now (one batch, all asked of the store at once: each return is
   * atomic, and one another replica made first gives nothing more); returns how many gave
   * something back.
   */
  async returnIdleOnce(): Promise<number> {
    const idle = await this.store.idleLines(this.options.idleMs, this.options.batchSize);
    const lines = await Promise.all(idle.map((accountId) => this.store.returnLine(accountId, this.options.idleMs)));
    const returned = lines.filter((line) => line.returnedMicro > 0);
    for (const line of returned) {
      lineReturns.inc({ reason: 'idle' });
      lineReturnedMicro.inc({ reason: 'idle' }, line.returnedMicro);
    }
    return returned.length;
  }

  /**
   * Gives back the account's unheld line now and has billing-service apply the cumulative total
   * returned (the outbox delivers it too; billing-service applies it once). UNAVAILABLE when
   * billing-service does not answer: asked again, this gives back nothing more but delivers the total.
   */
  async returnNow(accountId: string): Promise<{ returnedMicro: number; heldMicro: number }> {
    requireId('account_id', accountId);
    const line = await this.store.returnLine(accountId);
    if (line.returnedTotalMicro > 0) {
      try {
        await this.billing.applyBills([], [{ kind: 'return', accountId, returnedTotalMicro: line.returnedTotalMicro }]);
      } catch (err) {
        this.logger.warn('credit line returned but not yet applied by billing-service', { accountId, err });
        throw new DomainError('unavailable', 'billing-service unavailable: the line is given back, ask again to have it applied');
      }
    }
    lineReturns.inc({ reason: 'operator' });
    lineReturnedMicro.inc({ reason: 'operator' }, line.returnedMicro);
    return { returnedMicro: line.returnedMicro, heldMicro: line.heldMicro };
  }
}
