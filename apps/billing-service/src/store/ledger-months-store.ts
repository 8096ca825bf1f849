/** A ledger row as text, each column as the archive writes it (times in UTC, ISO 8601 with microseconds). */
export type LedgerTextRow = Readonly<Record<(typeof LEDGER_ARCHIVE_COLUMNS)[number], string>>;

/** The archive's columns, in order: a table with these columns takes the file with COPY ... (FORMAT csv, HEADER). */
export const LEDGER_ARCHIVE_COLUMNS = [
  'request_id',
  'request_at',
  'created_at',
  'account_id',
  'model',
  'paid',
  'prompt_tokens',
  'completion_tokens',
  'input_micro_per_million',
  'output_micro_per_million',
  'held_micro',
  'amount_micro',
  'shortfall_micro',
  'usage_estimated',
  'end_reason',
] as const;

/** Where a page of rows starts: after this row in (request_at, request_id) order. */
export interface LedgerCursor {
  requestAt: string;
  requestId: string;
}

/** The months dropped and what they held. */
export interface DroppedMonths {
  months: string[];
  rows: number;
  amountMicro: number;
}

/** The ledger's months: made ahead of time, read for an archive, dropped once archived. */
export interface LedgerMonthsStore {
  /** Makes the months from this one to `monthsAhead` months on; how many it made. */
  ensureMonths(monthsAhead: number): Promise<number>;
  /** Up to `limit` rows before `before` (a UTC month start), after `cursor`, in (request_at, request_id) order. */
  readRows(before: Date, cursor: LedgerCursor | undefined, limit: number): Promise<LedgerTextRow[]>;
  /**
   * In one transaction: stops writes to the months before `before`, lets `matches` read their
   * rows (pages in readRows' order), and drops them only when it answers true, recording each
   * month in billing.ledger_archives with `sha256`, after keeping the statement of each account
   * with a charge in them. Undefined when `matches` answered false.
   */
  dropMonths(
    before: Date,
    sha256: string,
    matches: (pages: AsyncIterable<LedgerTextRow[]>) => Promise<boolean>,
  ): Promise<DroppedMonths | undefined>;
}
