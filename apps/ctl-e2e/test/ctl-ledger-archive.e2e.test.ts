import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';

/** A UUIDv7 of the time given, as the edge makes billing ids. */
function uuid7At(ms: number): string {
  const hex = ms.toString(16).padStart(12, '0') + randomBytes(10).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const monthStart = (offset: number) => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1);
};
const monthName = (ms: number) => new Date(ms).toISOString().slice(0, 7);

/**
 * `ctl ledger archive` on a real stack: the months before a month go to a new CSV file, read back
 * and checked, then dropped; what is refused leaves the ledger whole.
 */
describe('ctl ledger archive (real stack)', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let pg: PgClient;
  let dir: string;

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    dir = mkdtempSync(join(tmpdir(), 'ctl-archive-'));
  }, 90_000);

  afterAll(async () => {
    await pg?.end();
    await gw?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  const count = async (sql: string, params: unknown[] = []) =>
    Number((await pg.query<{ n: string }>(`SELECT count(*) AS n FROM (${sql}) q`, params)).rows[0].n);

  it('writes the months before one to a new file that matches them, drops them, and refuses what it must', async () => {
    const accountId = 'acct_archive';
    const billed = [monthStart(-3) + 1000, monthStart(-2) + 86_400_000, monthStart(-2) + 2 * 86_400_000, monthStart(-1) + 1000];
    // The months a ledger moved from before its partitions (migration 018) has; billing made this one and the next two.
    for (const at of billed) await pg.query('SELECT billing.add_ledger_month($1)', [new Date(at)]);
    for (const [i, at] of billed.entries()) {
      await pg.query(
        `INSERT INTO billing.ledger (request_id, account_id, model, prompt_tokens, completion_tokens, input_micro_per_million,
           output_micro_per_million, amount_micro, paid, usage_estimated, created_at, request_at)
         VALUES ($1, $2, 'vendor-v4-flash', 10, 10, 1000000, 4000000, $3, true, false, $4, billing.ledger_time($1))`,
        [uuid7At(at), accountId, 1_000_000 * (i + 1), new Date(at + 500)],
      );
    }
    const before = monthName(monthStart(-1));
    const file = join(dir, 'ledger.csv');

    // The month before next has not ended: bills of the month running may still come.
    expect(await stack.ctl('ledger', 'archive', '--before', monthName(monthStart(1)), '--to', file)).toMatchObject({
      exitCode: 1,
      json: { error: { code: 'FAILED_PRECONDITION' } },
    });
    expect(existsSync(file)).toBe(false);
    writeFileSync(join(dir, 'taken.csv'), 'mine');
    expect(await stack.ctl('ledger', 'archive', '--before', before, '--to', join(dir, 'taken.csv'))).toMatchObject({
      exitCode: 1,
      json: { error: { code: 'USAGE' } },
    });
    expect(readFileSync(join(dir, 'taken.csv'), 'utf8')).toBe('mine');
    // A file that cannot be written is the operator's to fix, found before anything is dropped.
    expect(await stack.ctl('ledger', 'archive', '--before', before, '--to', join(dir, 'no-such-dir', 'ledger.csv'))).toMatchObject({
      exitCode: 1,
      json: { error: { code: 'USAGE' } },
    });
    expect(await count('SELECT 1 FROM billing.ledger WHERE account_id = $1', [accountId])).toBe(4);

    const done = await stack.ctl('ledger', 'archive', '--before', before, '--to', file);
    const content = readFileSync(file);
    expect(done).toEqual({
      exitCode: 0,
      json: {
        file,
        months: [monthName(monthStart(-3)), monthName(monthStart(-2))],
        rows: 3,
        amount: 6,
        sha256: createHash('sha256').update(content).digest('hex'),
      },
    });
    const lines = content.toString('utf8').trimEnd().split('\n');
    expect(lines[0]).toBe(
      'request_id,request_at,created_at,account_id,model,paid,prompt_tokens,completion_tokens,input_micro_per_million,output_micro_per_million,held_micro,amount_micro,shortfall_micro,usage_estimated,end_reason',
    );
    expect(lines.slice(1).map((l) => l.split(',')[11])).toEqual(['1000000', '2000000', '3000000']);
    expect(await count('SELECT 1 FROM billing.ledger WHERE account_id = $1', [accountId])).toBe(1);
    expect(await count('SELECT 1 FROM billing.ledger_archives')).toBe(2);

    // Nothing left before the month: a second run writes a header alone and drops nothing more.
    const again = await stack.ctl('ledger', 'archive', '--before', before, '--to', join(dir, 'again.csv'));
    expect(again).toMatchObject({ exitCode: 0, json: { months: [], rows: 0, amount: 0 } });
    expect(readFileSync(join(dir, 'again.csv'), 'utf8')).toBe(`${lines[0]}\n`);
  });
});
