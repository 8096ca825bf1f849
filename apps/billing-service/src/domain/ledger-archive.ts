import { createHash } from 'node:crypto';
import { requireCount } from '@gw/service-kit';
import { DroppedMonths, LEDGER_ARCHIVE_COLUMNS, LedgerCursor, LedgerMonthsStore, LedgerTextRow } from '../store/ledger-months-store';
import { DomainError } from '@gw/errors';
import { csvLine, MONTH } from '@gw/statement';

/** The archive's header line. */
export const LEDGER_ARCHIVE_HEADER = LEDGER_ARCHIVE_COLUMNS.join(',');

/** A page's largest size. */
export const MAX_ARCHIVE_PAGE = 10_000;

/** A row as one CSV line (RFC 4180 quoting, no line end). */
export const ledgerCsvLine = (row: LedgerTextRow): string => csvLine(LEDGER_ARCHIVE_COLUMNS.map((c) => row[c]));

const encodeCursor = (row: LedgerTextRow): string => `${row.request_at}|${row.request_id}`;

function decodeCursor(text: string): LedgerCursor | undefined {
  if (!text) return undefined;
  const bar = text.indexOf('|');
  if (bar < 0) throw new DomainError('invalid-argument', 'after is not a cursor this service gave');
  return { requestAt: text.slice(0, bar), requestId: text.slice(bar + 1) };
}

/**
 * Archiving the ledger's months (`ctl ledger archive`): the rows before a month, read as CSV, and
 * then dropped only when the file written of them is those rows, byte for byte.
 */
export class LedgerArchive {
  /**
   * `lateWindowMs`: how long after a month ends its bills may still be filed (BILL_LATE_WINDOW_MS);
   * a month is not archived before, so that no bill is filed into a month being dropped.
   */
  constructor(
    private readonly store: LedgerMonthsStore,
    private readonly lateWindowMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The start of month `before` (YYYY-MM, UTC), refused unless every month before it ended the late-bill window ago or more. */
  firstKept(before: string): Date {
    const match = MONTH.exec(before);
    if (!match) throw new DomainError('invalid-argument', 'before must be a month, YYYY-MM');
    const start = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, 1));
    const lateEdge = new Date(this.now() - this.lateWindowMs);
    if (start > new Date(Date.UTC(lateEdge.getUTCFullYear(), lateEdge.getUTCMonth(), 1))) {
      throw new DomainError(
        'failed-precondition',
        `the months before ${before} may still receive bills: a month is archived ${this.lateWindowMs} ms (BILL_LATE_WINDOW_MS) after it ends`,
      );
    }
    return start;
  }

  /** A page of the archive: the header, the lines, and where the next page starts ('' at the end). */
  async page(before: string, after: string, limit: number): Promise<{ header: string; lines: string[]; next: string }> {
    requireCount('limit', limit, MAX_ARCHIVE_PAGE, 1);
    const rows = await this.store.readRows(this.firstKept(before), decodeCursor(after), limit);
    return {
      header: LEDGER_ARCHIVE_HEADER,
      lines: rows.map(ledgerCsvLine),
      next: rows.length === limit ? encodeCursor(rows[rows.length - 1]) : '',
    };
  }

  /** Drops the months before `before` when `rows` and `sha256` are those of the archive of them as they stand. */
  async drop(before: string, rows: number, sha256: string): Promise<DroppedMonths> {
    let seen = 0;
    let digest = '';
    const dropped = await this.store.dropMonths(this.firstKept(before), sha256, async (pages) => {
      const hash = createHash('sha256').update(`${LEDGER_ARCHIVE_HEADER}\n`);
      for await (const page of pages) {
        for (const row of page) hash.update(`${ledgerCsvLine(row)}\n`);
        seen += page.length;
      }
      digest = hash.digest('hex');
      return seen === rows && digest === sha256.toLowerCase();
    });
    if (!dropped) {
      throw new DomainError(
        'failed-precondition',
        `the archive does not match the ledger (${rows} rows given, ${seen} there; sha256 ${digest}): nothing dropped`,
      );
    }
    return dropped;
  }
}
