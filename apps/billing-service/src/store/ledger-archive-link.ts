import { Queryable } from '@gw/service-kit';
import { Int8, toSafeInt } from './pg-billing-rows';
import { PgMoneyLinks } from './pg-money-links';

/** An archive as its drop records it. */
export interface ArchivedMonths {
  /** The months dropped, YYYY-MM. */
  months: string[];
  /** The archive file's rows and sha256, as checked against the ledger. */
  rows: number;
  sha256: string;
}

/**
 * Links an archive (`ledger-archived`): the file's digest and row count, and one row per account
 * of the paid charges leaving the ledger (what billing.archived_charges gains). Call it in the
 * drop's transaction, before the rows before `before` are dropped.
 */
export async function linkLedgerArchive(tx: Queryable, links: PgMoneyLinks, before: Date, archive: ArchivedMonths): Promise<void> {
  const { rows } = await tx.query<{ account_id: string; amount: Int8 }>(
    `SELECT account_id, sum(amount_micro) AS amount FROM billing.ledger WHERE request_at < $1 AND paid
     GROUP BY account_id HAVING sum(amount_micro) <> 0 ORDER BY account_id`,
    [before],
  );
  const charged = rows.map((r) => ({ kind: 'archive' as const, accountId: r.account_id, amountMicro: toSafeInt(r.amount) }));
  const details = {
    months: archive.months.join(','),
    fileRows: archive.rows,
    sha256: archive.sha256.toLowerCase(),
    amountMicro: charged.reduce((sum, r) => sum + BigInt(r.amountMicro), 0n).toString(),
  };
  await links.append(tx, { accountId: null, action: 'ledger-archived', details, actor: 'billing-service', reason: '' }, charged);
}
