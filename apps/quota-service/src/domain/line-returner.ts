import { status } from '@grpc/grpc-js';
import { Logger, requireId, RpcError } from '@gw/service-kit';
import { lineReturnedMicro, lineReturns } from '../quota-metrics';
import { AdmissionStore } from '../store/admission-store';
import { BillRecord, LineReturnRecord } from '../store/settle-outbox';
import { PeriodicTask } from './periodic-task';

/** When lines count as idle, and how the timer looks for them. */
export interface LineReturnOptions {
  /** A line whose account had no paid admission (nor grant) for this long is given back. */
  idleMs: number;
  /** How often the timer looks. */
  intervalMs: number;
  /** Lines looked at per pass at most. */
  batchSize: number;
}

/** billing-service as a forced return sees it: applies a return at once (billing.v1 ApplyBills). */
export interface ReturnSink {
  applyBills(bills: BillRecord[], returns: LineReturnRecord[]): Promise<unknown[]>;
}

/**
 * Gives the unheld part of credit lines back to billing-service (DESIGN "Money, credit lines and
 * holds"): a timer gives back the lines of accounts idle for `idleMs` (through the outbox), and
 * the operator (ReturnCreditLine, before a negative `balance add`) any line at once, delivered to
 * billing-service before the call answers so that the balance change that follows sees it.
 */
export class LineReturner {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly store: AdmissionStore,
    private readonly billing: ReturnSink,
    private readonly options: LineReturnOptions,
    private readonly logger: Logger,
  ) {
    this.loop = new PeriodicTask(() => this.returnIdleOnce(), options.intervalMs, (err) => this.logger.warn('idle credit lines not returned, will retry', { err }));
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
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
        throw new RpcError(status.UNAVAILABLE, 'billing-service unavailable: the line is given back, ask again to have it applied');
      }
    }
    lineReturns.inc({ reason: 'operator' });
    lineReturnedMicro.inc({ reason: 'operator' }, line.returnedMicro);
    return { returnedMicro: line.returnedMicro, heldMicro: line.heldMicro };
  }
}
