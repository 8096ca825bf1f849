import { SpendAlertReason } from '@gw/money';
import { counter, Database, sampledGauge } from '@gw/service-kit';
import { LedgerBill, SetAsideReason } from './store/credit-line-records';

/**
 * Requests billed, by `payment` (paid, free) and `outcome`: `billed` (a ledger row written, by
 * ApplyBills or the older release's Settle and RecordFree), `repeated` (already billed: nothing
 * changed) or `refused` (the older release's: no hold, or a request id of another payment or
 * account). ApplyBills' own outcomes are in billing_bills_total. The metric keeps the older
 * release's name, billing_settles_total.
 */
const billedRequests = counter(
  'billing_settles_total',
  'Requests billed by Settle, RecordFree or ApplyBills, by payment (paid, free) and outcome (billed, repeated, refused).',
  ['payment', 'outcome'],
);

/** Micro-LYD charged to balances by billed requests, each request once. */
const chargedMicroLyd = counter(
  'billing_charged_micro_lyd_total',
  'Micro-LYD charged to API balances by billed requests (each request once).',
);

/** Tokens billed, each request once: `model` is one billing prices (or the catalog's, for a free request). */
const tokens = counter(
  'billing_tokens_total',
  'Tokens billed, by model, payment (paid, free) and kind (prompt, completion), each request once.',
  ['model', 'payment', 'kind'],
);

/** LYD charged to balances, by model, each request once. */
const chargedLyd = counter('billing_charged_lyd_total', 'LYD charged to API balances by billed requests, by model (each request once).', [
  'model',
]);

/** Requests billed with an estimate of their usage (the reply broke off before reporting it), each once. */
const estimatedBills = counter('billing_estimated_settles_total', 'Requests billed with usage_estimated, by payment (paid, free).', [
  'payment',
]);

/** A request whose ledger row was just written, as the billing counters read it. */
export interface BilledRequest {
  model: string;
  paid: boolean;
  promptTokens: number;
  completionTokens: number;
  /** What the row charged, micro-LYD. */
  amountMicro: number;
  usageEstimated: boolean;
}

/** Counts a ledger row just written: the request, its charge, and whether its usage was estimated. */
export function countBilled(entry: BilledRequest): void {
  const payment = entry.paid ? 'paid' : 'free';
  billedRequests.inc({ payment, outcome: 'billed' });
  tokens.inc({ model: entry.model, payment, kind: 'prompt' }, entry.promptTokens);
  tokens.inc({ model: entry.model, payment, kind: 'completion' }, entry.completionTokens);
  if (entry.paid) {
    chargedMicroLyd.inc(entry.amountMicro);
    chargedLyd.inc({ model: entry.model }, entry.amountMicro / 1_000_000);
  }
  if (entry.usageEstimated) estimatedBills.inc({ payment });
}

/** Counts an older release's Settle or RecordFree that billed nothing: already billed, or refused. */
export function countNotBilled(payment: 'paid' | 'free', outcome: 'repeated' | 'refused'): void {
  billedRequests.inc({ payment, outcome });
}

/**
 * Bills of ApplyBills, by `payment` (paid, free) and `outcome`: `written` (its ledger row written
 * now), `corrected` (an estimated row replaced by reported usage), `repeated` (billed before:
 * nothing changed) or `refused` (its charge does not follow from its fields: skipped for good).
 */
const bills = counter(
  'billing_bills_total',
  'Bills of ApplyBills, by payment (paid, free) and outcome (written, corrected, repeated, refused).',
  ['payment', 'outcome'],
);

/** Charges of bills that the line and balance could not carry: only after quota-service's store lost writes. */
const shortfallMicroLyd = counter(
  'billing_bill_shortfall_micro_lyd_total',
  'Micro-LYD of bills not charged because the credit line and balance could not carry them (recorded in the ledger).',
);

/** Credit line extensions (an ExtendCreditLine call, or one line of ExtendCreditLines), and what they lent. */
const extensions = counter(
  'billing_credit_line_extensions_total',
  'Credit line extensions served: ExtendCreditLine calls and lines of ExtendCreditLines.',
);
const lentMicroLyd = counter(
  'billing_credit_line_lent_micro_lyd_total',
  'Micro-LYD lent to quota-service by ExtendCreditLine and ExtendCreditLines.',
);

/** Price watch streams ended for not acknowledging a change in time. */
const watchersCut = counter(
  'billing_price_watchers_cut_total',
  'WatchPrices streams ended for not acknowledging a price change within PRICE_ACK_TIMEOUT_MS.',
);

/** Price changes some replica did not confirm in time. */
const unconfirmedPriceChanges = counter(
  'billing_price_changes_unconfirmed_total',
  'SetPrice calls that returned without the confirmation of every billing-service replica.',
);

/**
 * Counts one bill of ApplyBills and the shortfall it recorded. A bill whose ledger row was written
 * now also counts as a billed request (its tokens and charge, each request once), so that revenue
 * reads the same whichever path billed it.
 */
export function countBill(
  bill: Omit<LedgerBill, 'requestId' | 'accountId'>,
  outcome: 'written' | 'corrected' | 'repeated' | 'refused',
  shortfallMicro = 0,
): void {
  bills.inc({ payment: bill.paid ? 'paid' : 'free', outcome });
  if (shortfallMicro > 0) shortfallMicroLyd.inc(shortfallMicro);
  if (outcome === 'written') countBilled({ ...bill, amountMicro: bill.chargeMicro - shortfallMicro });
}

/**
 * Bills of ApplyBills not filed but set aside for the operator, by `reason`: `too-late` (admitted
 * longer ago than BILL_LATE_WINDOW_MS), `ahead` (admitted further ahead of the clock than
 * BILL_AHEAD_MS), `month-archived` (its month is archived), `archived-estimate` (it would
 * correct an estimate whose month is archived) or `price-mismatch` (its prices were not in force
 * when it was admitted, PRICE_PROPAGATION_MS allowed). Each waits for `ctl bills file` or `write-off`.
 */
const setAsideBills = counter(
  'billing_bills_set_aside_total',
  'Bills of ApplyBills set aside for the operator (ctl bills set-aside) instead of filed, by payment (paid, free) and reason (too-late, ahead, month-archived, archived-estimate, price-mismatch).',
  ['payment', 'reason'],
);

/** Set-aside bills not yet filed or written off, read from the database when scraped (the same for every replica). */
export function watchSetAsideBills(db: Database): void {
  sampledGauge('billing_bills_set_aside_open', 'Set-aside bills waiting for the operator (ctl bills file or write-off).', async () => {
    const { rows } = await db.query<{ open: number }>('SELECT count(*)::int AS open FROM billing.set_aside_bills WHERE decision IS NULL');
    return rows[0].open;
  });
}

/** Counts a bill set aside instead of filed. */
export function countBillSetAside(bill: Pick<LedgerBill, 'paid'>, reason: SetAsideReason): void {
  setAsideBills.inc({ payment: bill.paid ? 'paid' : 'free', reason });
}

/**
 * Spend alerts raised for holders (a key that may have leaked: docs/architecture.md#a-leaked-key-caught-early),
 * by `reason`: `spend-jump` (an account's last hour far above its usual hour) or `idle-key` (a key
 * unbilled for weeks spending again). The operator's alert LeakedKeySuspected reads it.
 */
const spendAlerts = counter(
  'billing_spend_alerts_total',
  'Spend alerts raised for holders (a key that may have leaked), by reason (spend-jump, idle-key).',
  ['reason'],
);

/** Counts a spend alert raised (its batch committed). */
export function countSpendAlert(reason: SpendAlertReason): void {
  spendAlerts.inc({ reason });
}

/** Spend alerts not yet dismissed nor closed by their key's revocation, read from the database when scraped. */
export function watchSpendAlerts(db: Database): void {
  sampledGauge('billing_spend_alerts_open', 'Spend alerts open: neither dismissed nor closed by revoking their key.', async () => {
    const { rows } = await db.query<{ open: number }>('SELECT count(*)::int AS open FROM billing.spend_alerts WHERE closed_at IS NULL');
    return rows[0].open;
  });
}

/** Counts one extension (ExtendCreditLine, or a line of ExtendCreditLines) and what it lent. */
export function countExtension(lentNowMicro: number): void {
  extensions.inc();
  if (lentNowMicro > 0) lentMicroLyd.inc(lentNowMicro);
}

/** Counts a watcher cut for not acknowledging in time. */
export function countWatcherCut(): void {
  watchersCut.inc();
}

/** Counts a price change returned without every replica's confirmation. */
export function countPriceChangeUnconfirmed(): void {
  unconfirmedPriceChanges.inc();
}
