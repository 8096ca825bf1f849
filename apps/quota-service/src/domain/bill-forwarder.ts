import { isFinalFailure, Logger, PassOutcome, PeriodicTask } from '@gw/service-kit';
import { inLinkedSpan } from '@gw/telemetry';
import { outboxDeliveries, storeUnavailable } from '../quota-metrics';
import { BillOutbox, OlderOutboxBill, OutboxBill, OutboxLineReturn, OutboxRecord } from '../store/outbox/bill-outbox';

/**
 * A bill's answer when billing-service set it aside instead of filing it (its admitted time too
 * far from billing-service's clock, or its month archived): delivered, kept there for the
 * operator (`ctl bills set-aside`), and never to be sent again.
 */
export const BILL_SET_ASIDE = Symbol('bill set aside by billing-service');

/** billing-service as the forwarder sees it; each call is idempotent per request id. */
export interface BillingSink {
  /**
   * billing.v1.ApplyBills: bills of admitted requests and line returns, in one transaction; each
   * bill's error, undefined once applied, or BILL_SET_ASIDE (a return has no outcome of its own: the call's).
   */
  applyBills(bills: OutboxBill[], returns: OutboxLineReturn[]): Promise<unknown[]>;
}

/** Timing of the forwarder. */
export interface ForwarderOptions {
  /** Wait between passes (unless the last one was full), and the first wait after a failure. */
  pollMs: number;
  /** Longest wait after failures in a row (the wait doubles from pollMs, with jitter: backoffMs). */
  maxBackoffMs: number;
  /** Records delivered at once (at most 256, billing.v1's batch). */
  batchSize: number;
}

/** What a delivery is counted under (quota_outbox_deliveries_total's `kind`). */
type DeliveryKind = string;

/** One delivery's kind and its error, undefined once delivered. */
export interface Delivered {
  kind: DeliveryKind;
  err: unknown;
}

/** Delivers the records of the older release's path (no `kind`), while that path is served (legacy/older-bill-deliveries.ts). */
export interface OlderDeliveries {
  /** For each record, in order, how its delivery went. */
  deliver(records: OlderOutboxBill[]): Promise<Delivered[]>;
}

const NO_OLDER_DELIVERY = new Error('no delivery for a record of the older release');

const traceOf = (record: OutboxRecord) => (record.kind !== 'return' && record.traceContext ? [record.traceContext] : []);
type Retry = { err: unknown } | undefined;

/** What one pass did. */
export interface ForwardPass {
  delivered: number;
  failed: number;
}

/**
 * Delivers the bills of finished requests and the line returns from the outbox to billing-service,
 * until each lands: bills of admitted requests and returns are applied in batches (ApplyBills);
 * the older release's records go to `older`. Passes are pollMs apart, so that bills gather into batches (at 500 paid requests/s
 * about 125 per transaction, where sending the next batch as soon as one is answered gave 9); a
 * full pass is followed at once. Delivery is at least once;
 * billing-service applies each request id once, so a record delivered twice (a lost answer, a
 * replica taking over) is never billed twice. A bill billing-service set aside is delivered (it
 * keeps it for the operator): counted, logged, never sent again. Failures follow the one retry policy
 * (isFinalFailure, backoffMs): only a record billing-service refused for good is dropped, with a
 * metric and an error log carrying all of it so that an operator can apply it by hand.
 */
export class BillForwarder {
  private readonly loop: PeriodicTask;

  constructor(
    private readonly outbox: BillOutbox,
    private readonly billing: BillingSink,
    private readonly options: ForwarderOptions,
    private readonly logger: Logger,
    private readonly older?: OlderDeliveries,
  ) {
    // A pass never throws: it logs its own failures (forwardOnce).
    this.loop = new PeriodicTask(() => this.pass(), {
      intervalMs: options.pollMs,
      backoff: { firstMs: options.pollMs, maxMs: options.maxBackoffMs },
      failed: (err) => this.logger.warn('bill forwarding failed, will retry', { err }),
    });
  }

  /** Forwards until stopped, the first pass at once. */
  start(): void {
    this.loop.start(true);
  }

  /**
   * Stops the loop after the running pass; then, for up to `drainMs`, keeps delivering while
   * records remain and delivery works (for an outbox that a restart would lose).
   */
  async stop(drainMs = 0): Promise<void> {
    await this.loop.stop();
    const until = Date.now() + drainMs;
    while (Date.now() < until) {
      const pass = await this.forwardOnce();
      if (pass.delivered === 0 || pass.failed > 0) return;
    }
  }

  /** Delivers one batch; the outbox's own failure counts as one failed record. */
  async forwardOnce(): Promise<ForwardPass> {
    try {
      const batch = await this.outbox.claim(this.options.batchSize);
      const records = batch.map(({ record }) => record);
      const retries =
        records.length === 0
          ? []
          : // The span keeps the name traces are searched by.
            await inLinkedSpan('settle outbox delivery', { 'gateway.bills': records.length }, records.flatMap(traceOf), () =>
              this.deliverAll(records),
            );
      const done = batch.filter((_, i) => retries[i] === undefined).map((claimed) => claimed.id);
      await this.outbox.ack(done);
      const failed = batch.length - done.length;
      if (failed > 0) this.logger.warn('bills not delivered, will retry', { failed, err: retries.find((r) => r !== undefined)?.err });
      return { delivered: done.length, failed };
    } catch (err) {
      storeUnavailable.inc({ operation: 'SettleOutbox' });
      this.logger.warn('bill outbox unavailable', { err });
      return { delivered: 0, failed: 1 };
    }
  }

  /** For each record: undefined when done with (delivered, or refused for good and logged), else why to retry it. */
  private async deliverAll(records: OutboxRecord[]): Promise<Retry[]> {
    const olderRecords = records.filter((record): record is OlderOutboxBill => record.kind === undefined);
    const bills = records.filter((record): record is OutboxBill => record.kind === 'bill');
    const returns = records.filter((record): record is OutboxLineReturn => record.kind === 'return');
    const [olderDelivered, applyErrors] = await Promise.all([this.deliverOlder(olderRecords), this.apply(bills, returns)]);
    const deliveredOf = new Map<OutboxRecord, Delivered>([
      ...olderRecords.map((record, i) => [record, olderDelivered[i]] as const),
      ...applyErrors.map(([record, err]) => [record, { kind: record.kind as DeliveryKind, err }] as const),
    ]);
    return records.map((record) => {
      const { kind, err } = deliveredOf.get(record) as Delivered;
      return this.judge(record, kind, err);
    });
  }

  private async deliverOlder(records: OlderOutboxBill[]): Promise<Delivered[]> {
    if (records.length === 0) return [];
    if (!this.older) return records.map(() => ({ kind: 'older', err: NO_OLDER_DELIVERY }));
    return this.older.deliver(records);
  }

  /**
   * Applies bills and returns in one call: each bill's error, and the call's for each return. A
   * call refused for good as a whole is tried again one record per call, so that one bill
   * billing-service refuses does not take the others with it.
   */
  private async apply(bills: OutboxBill[], returns: OutboxLineReturn[]): Promise<[OutboxRecord, unknown][]> {
    if (bills.length + returns.length === 0) return [];
    try {
      const errors = await this.billing.applyBills(bills, returns);
      return [
        ...bills.map((bill, i) => [bill, errors[i]] as [OutboxRecord, unknown]),
        ...returns.map((r) => [r, undefined] as [OutboxRecord, unknown]),
      ];
    } catch (err) {
      const all: OutboxRecord[] = [...bills, ...returns];
      if (!isFinalFailure(err) || all.length === 1) return all.map((record) => [record, err]);
      const alone = await Promise.all(
        all.map((record) => (record.kind === 'bill' ? this.apply([record], []) : this.apply([], [record as OutboxLineReturn]))),
      );
      return alone.flat();
    }
  }

  /** What one delivery came to: counted, and a final refusal logged whole and dropped. */
  private judge(record: OutboxRecord, kind: DeliveryKind, err: unknown): Retry {
    if (err === undefined) {
      outboxDeliveries.inc({ kind, outcome: 'delivered' });
      return undefined;
    }
    if (err === BILL_SET_ASIDE) {
      outboxDeliveries.inc({ kind, outcome: 'set-aside' });
      this.logger.warn('bill set aside by billing-service for the operator (ctl bills set-aside), not sent again', {
        billingId: record.kind === 'return' ? undefined : record.requestId,
      });
      return undefined;
    }
    if (!isFinalFailure(err)) {
      outboxDeliveries.inc({ kind, outcome: 'retry' });
      return { err };
    }
    outboxDeliveries.inc({ kind, outcome: 'dropped' });
    this.logger.error('bill refused by billing-service, dropped', {
      billingId: record.kind === 'return' ? undefined : record.requestId,
      record,
      err,
    });
    return undefined;
  }

  /** One pass of the loop: a full batch is followed at once, a failure backs off. */
  private async pass(): Promise<PassOutcome> {
    const { delivered, failed } = await this.forwardOnce();
    if (failed > 0) return 'failed';
    if (delivered >= this.options.batchSize) return 'more';
  }
}
