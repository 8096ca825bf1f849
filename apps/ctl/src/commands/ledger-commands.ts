import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { microToLyd } from '@gw/money';
import { Command, required } from './command';
import { createNewFile } from './new-file';

/** Rows asked of billing-service per page. */
const PAGE_ROWS = 5_000;

/** How long the drop may take: it reads every archived row once more, in its transaction. */
const DROP_TIMEOUT_MS = 600_000;

/** What a file holds, read back from the disk: its SHA-256 and its lines after the header. */
async function readBack(path: string): Promise<{ sha256: string; rows: number }> {
  const hash = createHash('sha256');
  let lineEnds = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lineEnds++;
  }
  return { sha256: hash.digest('hex'), rows: lineEnds - 1 };
}

/**
 * `ledger archive --before YYYY-MM --to FILE`: writes the ledger's months before YYYY-MM to a new
 * CSV file (a header, then a line per row; COPY ... FROM ... WITH (FORMAT csv, HEADER) takes it),
 * reads the file back from the disk, and has billing-service drop those months only if the
 * file's row count and SHA-256 are those of the rows as they stand. A file that exists is left alone.
 */
export const ledgerArchive: Command = async (flags, c) => {
  const before = required(flags, 'before');
  const path = required(flags, 'to');
  // Before anything is read or dropped: a path that cannot be written is refused (USAGE).
  const file = await createNewFile('to', path);
  let written: { sha256: string; rows: number };
  try {
    try {
      let after = '';
      do {
        const page = await c.billing.readLedgerArchive({ before, after, limit: PAGE_ROWS });
        await file.write((after ? '' : `${page.header}\n`) + page.lines.map((line) => `${line}\n`).join(''));
        after = page.next;
      } while (after);
      await file.sync();
    } finally {
      await file.close();
    }
    written = await readBack(path);
  } catch (err) {
    // Nothing was dropped yet: a part-written file would only mislead.
    await rm(path, { force: true });
    throw err;
  }
  // From here the file stays whatever happens: the months may be gone even if the answer is lost.
  const dropped = await c.billing.dropLedgerMonths({ before, ...written }, { timeoutMs: Math.max(c.timeoutMs, DROP_TIMEOUT_MS) });
  return { file: path, months: dropped.months, rows: dropped.rows, amount: microToLyd(dropped.amountMicroLyd), sha256: written.sha256 };
};
