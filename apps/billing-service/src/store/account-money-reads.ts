import { PriceRecord } from './billing-records';
import { EndReason } from './credit-line-records';

/** One billed request, as the account's holder sees it. */
export interface ChargeRecord {
  requestId: string;
  createdAt: Date;
  model: string;
  promptTokens: number;
  completionTokens: number;
  amountMicro: number;
  paid: boolean;
  usageEstimated: boolean;
  endReason: EndReason;
  /** It replaced an estimate billed first (billing.charge_corrections has the correction). */
  corrected: boolean;
}

/** Tokens and money of one UTC day. */
export interface DayTotalRecord {
  /** YYYY-MM-DD. */
  day: string;
  tokens: number;
  amountMicro: number;
}

/** What the console reads of an account's money: read only, from the ledger and the prices. */
export interface AccountMoneyReads {
  /** Up to `limit` charges, newest first, older than the charge of request `before` when given. */
  charges(accountId: string, limit: number, before: string | undefined): Promise<ChargeRecord[]>;
  /** The last `days` UTC days, today included, oldest first, zeros for days without charges. */
  dailyTotals(accountId: string, days: number): Promise<DayTotalRecord[]>;
  prices(): Promise<PriceRecord[]>;
}
