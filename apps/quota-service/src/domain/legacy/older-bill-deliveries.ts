import { OlderOutboxBill } from '../../store/outbox/bill-outbox';
import { Delivered, OlderDeliveries } from '../bill-forwarder';

/** billing-service as the older release's deliveries see it; each call is idempotent per request id. */
export interface OlderBillingSink {
  /** billing.v1.SettleMany: charges paid requests against their holds; each record's error, or undefined once settled. */
  settleMany(records: OlderOutboxBill[]): Promise<unknown[]>;
  /** billing.v1.RecordFree: the ledger row of a free request. */
  recordFree(record: OlderOutboxBill): Promise<void>;
  /** billing.v1.ReleaseHold: a paid request that used no tokens is not billed. */
  releaseHold(requestId: string): Promise<void>;
}

type OlderKind = 'settle' | 'free' | 'release';

/** How a bill of the older path is delivered: a free one recorded, a paid one settled, or its hold released when it used no tokens. */
function kindOf(record: OlderOutboxBill): OlderKind {
  if (record.payment === 'free') return 'free';
  return record.promptTokens + record.completionTokens > 0 ? 'settle' : 'release';
}

/** The bills of the older release's path (its holds at billing-service), as BillForwarder delivers them. */
export class OlderBillDeliveries implements OlderDeliveries {
  constructor(private readonly billing: OlderBillingSink) {}

  async deliver(records: OlderOutboxBill[]): Promise<Delivered[]> {
    const kinds = records.map(kindOf);
    const settles = records.filter((_, i) => kinds[i] === 'settle');
    const settleErrors = settles.length > 0 ? await this.billing.settleMany(settles) : [];
    const settleErrorOf = new Map(settles.map((record, i) => [record, settleErrors[i]] as const));
    return Promise.all(
      records.map(async (record, i) => {
        const kind = kinds[i];
        if (kind === 'settle') return { kind, err: settleErrorOf.get(record) };
        try {
          if (kind === 'free') await this.billing.recordFree(record);
          else await this.billing.releaseHold(record.requestId);
          return { kind, err: undefined };
        } catch (err) {
          return { kind, err };
        }
      }),
    );
  }
}
