import { AuditActor, Database, Queryable } from '@gw/service-kit';
import { DomainError } from '@gw/errors';
import { EndReason, SetAsideReason } from './credit-line-records';
import { applyBillsOn } from './pg-credit-line-store';
import { Int8, toSafeInt } from './pg-billing-rows';
import { PgMoneyLinks } from './pg-money-links';
import { SetAsideCursor, SetAsideDecision, SetAsideRecord, SetAsideStore } from './set-aside-store';

interface SetAsideRow {
  request_id: string;
  account_id: string;
  reason: SetAsideReason;
  admitted_at: Date;
  model: string;
  paid: boolean;
  prompt_tokens: Int8;
  completion_tokens: Int8;
  usage_estimated: boolean;
  held_micro: Int8;
  input_micro_per_million: Int8;
  output_micro_per_million: Int8;
  charge_micro: Int8;
  end_reason: EndReason;
  deliveries: number;
  set_aside_at: Date;
  set_aside_at_text: string;
  decision: 'filed' | 'written-off' | null;
  key_id: string | null;
}

const COLUMNS = `request_id, account_id, reason, admitted_at, model, paid, prompt_tokens, completion_tokens, usage_estimated, held_micro,
  input_micro_per_million, output_micro_per_million, charge_micro, end_reason, deliveries, set_aside_at, decision, key_id,
  to_char(set_aside_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS set_aside_at_text`;

const toRecord = (r: SetAsideRow): SetAsideRecord => ({
  bill: {
    requestId: r.request_id,
    accountId: r.account_id,
    model: r.model,
    paid: r.paid,
    promptTokens: toSafeInt(r.prompt_tokens),
    completionTokens: toSafeInt(r.completion_tokens),
    usageEstimated: r.usage_estimated,
    heldMicro: toSafeInt(r.held_micro),
    inputMicroPerMillion: toSafeInt(r.input_micro_per_million),
    outputMicroPerMillion: toSafeInt(r.output_micro_per_million),
    chargeMicro: toSafeInt(r.charge_micro),
    endReason: r.end_reason,
    admittedAtMs: r.admitted_at.getTime(),
    ...(r.key_id !== null ? { keyId: r.key_id } : {}),
  },
  reason: r.reason,
  setAsideAt: r.set_aside_at,
  deliveries: r.deliveries,
  cursor: { setAsideAt: r.set_aside_at_text, requestId: r.request_id },
});

/** Thrown inside the filing transaction to roll it back: the bill was not charged. */
class NotCharged extends Error {
  constructor(readonly outcome: string) {
    super(`filing was not charged: ${outcome}`);
  }
}

/**
 * SetAsideStore on Postgres: billing.set_aside_bills of migration 031, each decision a link of
 * billing's audit chain (a filed bill's link covers the charge it made).
 */
export class PgSetAsideBills implements SetAsideStore {
  constructor(
    private readonly db: Database,
    private readonly links: PgMoneyLinks,
  ) {}

  async listOpen(cursor: SetAsideCursor | undefined, limit: number): Promise<SetAsideRecord[]> {
    const after = cursor ?? { setAsideAt: '-infinity', requestId: '' };
    const { rows } = await this.db.query<SetAsideRow>(
      `SELECT ${COLUMNS} FROM billing.set_aside_bills
       WHERE decision IS NULL AND (set_aside_at, request_id) > ($1::timestamptz, $2)
       ORDER BY set_aside_at, request_id LIMIT $3`,
      [after.setAsideAt, after.requestId, limit],
    );
    return rows.map(toRecord);
  }

  async file(requestId: string, by: AuditActor): Promise<SetAsideDecision> {
    try {
      return await this.db.transaction(async (tx) => {
        const open = await this.openBill(tx, requestId);
        if (!('bill' in open)) return open;
        if (open.reason === 'archived-estimate') return { kind: 'archived-estimate' };
        const { rows } = await tx.query<{ filed_at: Date; month: string }>(
          // To the millisecond: the row is filed under this time as a JavaScript Date carries it, and found again by it.
          `UPDATE billing.set_aside_bills SET decision = 'filed', filed_at = date_trunc('milliseconds', now()), decided_at = now(),
             decided_by = $2, decided_reason = $3
           WHERE request_id = $1 RETURNING filed_at, to_char(filed_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month`,
          [requestId, by.actor, by.reason],
        );
        const estimateAt = await this.estimateCorrected(tx, open);
        const [applied] = await applyBillsOn(tx, [{ ...open.bill, requestAt: estimateAt ?? rows[0].filed_at, setAside: undefined }], []);
        if (applied.outcome !== 'written' && applied.outcome !== 'corrected') throw new NotCharged(applied.outcome);
        const month = estimateAt ? estimateAt.toISOString().slice(0, 7) : rows[0].month;
        const charged =
          applied.chargedMicro === 0
            ? []
            : [{ kind: 'charge' as const, accountId: open.bill.accountId, requestId, amountMicro: applied.chargedMicro }];
        await this.links.append(
          tx,
          {
            accountId: open.bill.accountId,
            action: 'set-aside-bill-filed',
            details: {
              requestId,
              month,
              chargeMicro: open.bill.chargeMicro,
              chargedMicro: applied.chargedMicro,
              shortfallMicro: applied.shortfallMicro,
            },
            ...by,
          },
          charged,
        );
        return { kind: 'filed', month, applied };
      });
    } catch (err) {
      if (err instanceof NotCharged) {
        throw new DomainError('failed-precondition', `request ${requestId} was not charged (${err.outcome}): nothing changed`);
      }
      throw err;
    }
  }

  writeOff(requestId: string, by: AuditActor): Promise<SetAsideDecision> {
    return this.db.transaction(async (tx) => {
      const open = await this.openBill(tx, requestId);
      if (!('bill' in open)) return open;
      await tx.query(
        `UPDATE billing.set_aside_bills SET decision = 'written-off', decided_at = now(), decided_by = $2, decided_reason = $3
         WHERE request_id = $1`,
        [requestId, by.actor, by.reason],
      );
      await this.links.trail.append(tx, {
        accountId: open.bill.accountId,
        action: 'set-aside-bill-written-off',
        details: { requestId, chargeMicro: open.bill.chargeMicro, reason: open.reason },
        ...by,
      });
      return { kind: 'written-off', chargeMicro: open.bill.chargeMicro };
    });
  }

  /**
   * The time of the estimate in the ledger that a 'price-mismatch' bill would have corrected (such
   * a bill is set aside under it): filed, it corrects that estimate rather than charging the request again.
   */
  private async estimateCorrected(tx: Queryable, open: SetAsideRecord): Promise<Date | undefined> {
    if (open.reason !== 'price-mismatch') return undefined;
    const at = new Date(open.bill.admittedAtMs as number);
    const { rows } = await tx.query('SELECT 1 FROM billing.ledger WHERE request_id = $1 AND request_at = $2 AND usage_estimated', [
      open.bill.requestId,
      at,
    ]);
    return rows.length > 0 ? at : undefined;
  }

  /** The bill, locked, when it waits for a decision; else why not. */
  private async openBill(
    tx: Queryable,
    requestId: string,
  ): Promise<SetAsideRecord | Extract<SetAsideDecision, { kind: 'not-found' } | { kind: 'decided' }>> {
    // The account's balance first, in the order apply_bills takes its locks, so that a delivery of the same bill meanwhile cannot deadlock with this.
    await tx.query(
      `SELECT 1 FROM billing.balances WHERE account_id = (SELECT account_id FROM billing.set_aside_bills WHERE request_id = $1) FOR UPDATE`,
      [requestId],
    );
    const { rows } = await tx.query<SetAsideRow>(`SELECT ${COLUMNS} FROM billing.set_aside_bills WHERE request_id = $1 FOR UPDATE`, [
      requestId,
    ]);
    if (!rows[0]) return { kind: 'not-found' };
    if (rows[0].decision) return { kind: 'decided', decision: rows[0].decision };
    return toRecord(rows[0]);
  }
}
