/**
 * A holder's monthly statement as a CSV file (docs/statements.md): a header, then one row per
 * line of the statement, every row naming its account and month. The first row is the opening
 * balance, the last the closing one, and between them every movement of the month in time
 * order, each with the balance after it; a signature row ends the file.
 */
export const STATEMENT_COLUMNS = [
  'account',
  'month',
  'time',
  'kind',
  'request_id',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'input_lyd_per_million',
  'output_lyd_per_million',
  'usage',
  'end_reason',
  'paid',
  'amount_lyd',
  'shortfall_lyd',
  'balance_lyd',
  'note',
] as const;

export type StatementColumn = (typeof STATEMENT_COLUMNS)[number];

/** A row as text, by column. */
export type StatementRow = Readonly<Record<StatementColumn, string>>;

/** The header line, exactly. */
export const STATEMENT_HEADER = STATEMENT_COLUMNS.join(',');

/**
 * What moves a balance: an operator's top-up, an operator's correction (a negative change), the
 * balance carried in when entries began to be kept, a billed request (paid or free, as first
 * billed), and the correction of an estimated charge by the request's reported usage.
 */
export const MOVEMENT_KINDS = ['top-up', 'operator-correction', 'brought-forward', 'charge', 'estimate-corrected'] as const;

export type MovementKind = (typeof MOVEMENT_KINDS)[number];

/** final: the month can take no more bills, and its statement never changes; provisional: it still may. */
export type StatementStatus = 'final' | 'provisional';

/** A month, YYYY-MM (UTC). */
export const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The start of month YYYY-MM and of the month after it, as statement times ("2026-01-01T00:00:00.000000Z"). */
export function monthBounds(month: string): { start: string; end: string } {
  const match = MONTH.exec(month);
  if (!match) throw new Error(`not a month (YYYY-MM): ${month}`);
  const year = Number(match[1]) + (match[2] === '12' ? 1 : 0);
  const next = `${String(year).padStart(4, '0')}-${String((Number(match[2]) % 12) + 1).padStart(2, '0')}`;
  return { start: `${month}-01T00:00:00.000000Z`, end: `${next}-01T00:00:00.000000Z` };
}
