import { StatementStatus } from '@gw/statement';

/** Takes a part of a statement's text (whole lines, each with its line end) and resolves once it may take the next. */
export type SendPart = (text: string) => Promise<void>;

/**
 * Holders' monthly statements as the books give them: made from the books (the balance entries,
 * the ledger and the corrections of estimates, opening at the closing of the last statement kept
 * before), or kept once final. Each sends the lines of the statement from its header to its
 * closing row, never its signature.
 */
export interface StatementStore {
  /** Sends the lines of the statement kept for the account's month and answers true; false when none is kept. */
  sendKept(accountId: string, month: string, send: SendPart): Promise<boolean>;
  /** Keeps the final statement of the account's month as the books give it now, unless one is kept already. */
  keep(accountId: string, month: string): Promise<void>;
  /** Sends the lines of the statement of the account's month as the books give it now, all from one snapshot. */
  sendMade(accountId: string, month: string, status: StatementStatus, send: SendPart): Promise<void>;
  /** The first month (YYYY-MM) in which the account's balance moved, or undefined. */
  firstMonth(accountId: string): Promise<string | undefined>;
}
