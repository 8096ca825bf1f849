import { createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { microToLyd } from '@gw/money';
import { checkStatement } from '@gw/statement';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually, launchChromium, screenshotDir } from '@gw/testing';
import { ctlOk, SignedInHolder, signedInHolder } from './console-holder';

const monthName = (offset: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 7);
};
const [LAST, THIS] = [monthName(-1), monthName(0)];
const monthTitle = (month: string) =>
  new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
/** An amount as the console writes it. */
const lyd = (micro: number) => `${microToLyd(micro).toLocaleString('en-US', { maximumFractionDigits: 6 })} LYD`;

interface Printed {
  opening: number;
  closing: number;
  movements: number;
  statement: string;
}

/**
 * A holder's monthly statements in Debian's Chromium against the whole stack: the months listed
 * with the public key, a month read as a page whose figures are those of `ctl statement`, the CSV
 * downloaded from the page the same bytes as ctl's and checking with the key the page shows; last
 * month final, opening the month after. Paid requests go through the edge; the account's first
 * top-up is dated into the middle of last month by SQL (its `created_at` only), as a test cannot wait a month.
 */
describe('monthly statements in the console, in a real browser', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let browser: Browser;
  let pg: PgClient;
  let holder: SignedInHolder;
  const shots = screenshotDir(__filename);

  const shot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 700 });
    await page.screenshot({ path: join(shots, `${name}-wide.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
  };
  const printed = async (month: string) => ctlOk<Printed>(stack, 'statement', '--account', holder.accountId, '--month', month);

  beforeAll(async () => {
    // A late-bill window of a minute: last month is final at once, whatever the day of this month.
    gw = await startGateway({ BILL_LATE_WINDOW_MS: '60000' });
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    browser = await launchChromium();
    holder = await signedInHolder(stack, browser, 'statements@example.com', { name: 'Counter', balance: '5' });
    await pg.query(
      `UPDATE billing.balance_entries SET created_at = date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - interval '15 days'
       WHERE account_id = $1`,
      [holder.accountId],
    );
    await ctlOk(stack, 'balance', 'add', '--account', holder.accountId, '--amount', '2.5', '--reason', 'invoice 12, paid by transfer');
    await ctlOk(stack, 'balance', 'add', '--account', holder.accountId, '--amount', '-0.5', '--reason', 'fee of invoice 12');
    const { key } = await ctlOk<{ key: string }>(stack, 'key', 'create', '--account', holder.accountId);
    for (const words of [800, 300]) {
      const res = await fetch(`${stack.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'vendor-v4-flash',
          max_tokens: 2000,
          messages: [{ role: 'user', content: `Tell me [[sim:words=${words}]]` }],
        }),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    await eventually(
      () => printed(THIS),
      (p) => p.movements === 4,
      { timeoutMs: 15_000, what: 'both requests billed' },
    );
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  it('lists the months since the first top-up, with the key that signs them', async () => {
    const { page } = holder;
    await page.getByRole('link', { name: 'Statements' }).click();
    await page.waitForURL(/\/statements$/);
    const rows = await page.locator('#months tbody tr').allInnerTexts();
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      expect.stringMatching(new RegExp(`^${monthTitle(THIS)} .*provisional`)),
      expect.stringMatching(new RegExp(`^${monthTitle(LAST)} .*final`)),
    ]);
    const published = await ctlOk<{ keyId: string; publicKey: string }>(stack, 'statement', 'key');
    expect(await page.locator('#key-id').innerText()).toBe(published.keyId);
    expect(await page.locator('#public-key').innerText()).toBe(published.publicKey);
    const pem = await page.request.get(`${stack.consoleUrl}/statements/key.pem`);
    expect(pem.headers()['content-disposition']).toBe('attachment; filename="statement-key.pem"');
    expect(await pem.text()).toBe(published.publicKey);
    await shot(page, '01-statements');
  });

  it("shows this month's statement: the figures ctl gives, each movement with the balance after it, provisional", async () => {
    const { page } = holder;
    await page.getByRole('link', { name: monthTitle(THIS), exact: true }).click();
    await page.waitForURL(new RegExp(`/statements/${THIS}$`));
    const books = await printed(THIS);
    const { balance } = await ctlOk<{ balance: number }>(stack, 'account', 'show', '--account', holder.accountId);
    expect(books.closing).toBe(balance);
    expect(await page.locator('#opening').innerText()).toBe(lyd(5_000_000));
    expect(await page.locator('#closing').innerText()).toBe(lyd(Math.round(balance * 1_000_000)));
    expect(await page.locator('#top-ups').innerText()).toBe(lyd(2_500_000));
    expect(await page.locator('#corrections').innerText()).toBe(lyd(-500_000));
    expect(await page.locator('#provisional').isVisible()).toBe(true);
    const movements = page.locator('#movements tbody tr');
    expect(await movements.evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind')))).toEqual([
      'top-up',
      'operator-correction',
      'charge',
      'charge',
    ]);
    expect(await movements.nth(0).innerText()).toContain('invoice 12, paid by transfer');
    expect(await movements.nth(2).innerText()).toMatch(/vendor-v4-flash.*reported, complete,\s*paid/s);
    expect((await movements.nth(3).innerText()).trim()).toMatch(new RegExp(`${lyd(Math.round(balance * 1_000_000)).replace('.', '\\.')}$`));
    expect(await page.locator('#signature').innerText()).toContain('the console checked the signature and the sums');
    await shot(page, '02-statement-this-month');
  });

  it('downloads the signed CSV from the page: the same bytes as ctl gives, checking with the key the page shows', async () => {
    const { page } = holder;
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download the signed CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`statement-${THIS}.csv`);
    const text = readFileSync(await download.path(), 'utf8');
    expect(text).toBe((await printed(THIS)).statement);
    const pem = await (await page.request.get(`${stack.consoleUrl}/statements/key.pem`)).text();
    expect(checkStatement(text, createPublicKey(pem))).toMatchObject({ ok: true, summary: { accountId: holder.accountId, movements: 4 } });
    writeFileSync(join(shots, `statement-${THIS}.csv`), text);
    writeFileSync(join(shots, 'statement-key.pem'), pem);
  });

  it('shows last month final, closing where this month opens', async () => {
    const { page } = holder;
    await page.goto(`${stack.consoleUrl}/statements/${LAST}`);
    expect(await page.locator('#final').isVisible()).toBe(true);
    expect(await page.locator('#opening').innerText()).toBe(lyd(0));
    expect(await page.locator('#closing').innerText()).toBe(lyd(5_000_000));
    expect(await page.locator('#movements tbody tr').count()).toBe(1);
    const last = await printed(LAST);
    expect(last).toMatchObject({ opening: 0, closing: 5, movements: 1 });
    expect((await printed(THIS)).opening).toBe(last.closing);
    await shot(page, '03-statement-last-month');
  });

  it('answers a month not begun with the refusal page, and a name that is no month with not found', async () => {
    const { page } = holder;
    expect((await page.goto(`${stack.consoleUrl}/statements/${monthName(1)}`))?.status()).toBe(400);
    expect((await page.goto(`${stack.consoleUrl}/statements/${monthName(1)}.csv`))?.status()).toBe(400);
    expect((await page.goto(`${stack.consoleUrl}/statements/last-year`))?.status()).toBe(404);
  });
});
