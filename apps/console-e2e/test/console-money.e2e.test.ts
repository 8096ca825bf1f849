import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { microToLyd } from '@gw/money';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually, launchChromium, screenshotDir } from '@gw/testing';
import { ctlOk, SignedInHolder, signedInHolder } from './console-holder';

const START_BALANCE_MICRO = 200_000;
/** Days back each paid request's ledger row is dated: two today, three in the 7 full days before, one just outside them. */
const DAYS_BACK = [0, 0, 1, 3, 7, 8];

/** An amount as the console writes it. */
const lyd = (micro: number) => `${microToLyd(micro).toLocaleString('en-US', { maximumFractionDigits: 6 })} LYD`;
/** The micro-LYD of an amount the console wrote. */
const microOf = (text: string) => Math.round(Number(text.replace(/ LYD$/, '').replace(/,/g, '')) * 1_000_000);
/** micro-LYD as typed in the form, exactly. */
const typed = (micro: number) => `${Math.floor(micro / 1_000_000)}.${String(micro % 1_000_000).padStart(6, '0')}`;

/**
 * Where the money goes, in Debian's Chromium against the whole stack: the balance, spent today,
 * the average of the 7 full days before today and how long the balance lasts at it, each equal
 * to what the ledger says by SQL; what a running request holds while it runs; and the
 * low-balance alert a holder sets, shown as a banner on the money and keys pages at or below it.
 * Paid requests go through the edge and billing-service applies their bills; a test cannot wait
 * days, so their ledger rows are then dated back by SQL (the ledger's `created_at` only: the
 * money moved as it did).
 */
describe('where the money goes, in a real browser, as the ledger has it', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let browser: Browser;
  let pg: PgClient;
  let holder: SignedInHolder;
  let key: string;
  const shots = screenshotDir(__filename);

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    browser = await launchChromium();
    holder = await signedInHolder(stack, browser, 'money@example.com', { name: 'Spender', balance: typed(START_BALANCE_MICRO) });
    key = (await ctlOk<{ key: string }>(stack, 'key', 'create', '--account', holder.accountId, '--name', 'spender')).key;
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await pg?.end();
    await gw?.stop();
  }, 60_000);

  const shot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 700 });
    await page.screenshot({ path: join(shots, `${name}-wide.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
  };
  /** A paid request through the edge: about 2,000 words of reply, 3,000 tokens at most. */
  const chat = async (content: string) => {
    const res = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-flash', max_tokens: 3000, messages: [{ role: 'user', content }] }),
    });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
  };
  const ledgerRows = async () =>
    (
      await pg.query<{ request_id: string }>(
        'SELECT request_id FROM billing.ledger WHERE account_id = $1 AND paid ORDER BY created_at, request_id',
        [holder.accountId],
      )
    ).rows;
  const untilLedgerHas = async (n: number) =>
    expect(await eventually(ledgerRows, (rows) => rows.length >= n, { timeoutMs: 15_000, intervalMs: 100 })).toHaveLength(n);
  /** By SQL: the balance, every charge, today's (UTC) and those of the 7 full days before today. */
  const ledger = async () => {
    const { rows } = await pg.query<{ balance: string; all: string; today: string; last7: string }>(
      `WITH t AS (SELECT date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS midnight)
       SELECT (SELECT balance_micro FROM billing.balances WHERE account_id = $1)::text AS balance,
              coalesce(sum(l.amount_micro), 0)::text AS all,
              coalesce(sum(l.amount_micro) FILTER (WHERE l.created_at >= t.midnight), 0)::text AS today,
              coalesce(sum(l.amount_micro) FILTER (WHERE l.created_at >= t.midnight - interval '7 days' AND l.created_at < t.midnight), 0)::text AS last7
       FROM t LEFT JOIN billing.ledger l ON l.account_id = $1 GROUP BY t.midnight`,
      [holder.accountId],
    );
    const r = rows[0];
    return { balance: Number(r.balance), all: Number(r.all), today: Number(r.today), last7: Number(r.last7) };
  };
  const figure = (page: Page, id: string) => page.locator(`#${id}`).innerText();
  const banner = (page: Page) => page.locator('#low-balance');
  const setThreshold = async (page: Page, value: string) => {
    await page.getByLabel(/^Alert at or below/).fill(value);
    // The answer (303 to the page, or 400 with it), then the page it leads to, loaded.
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/usage/low-balance')),
      page.waitForEvent('framenavigated'),
      page.getByRole('button', { name: 'Save alert' }).click(),
    ]);
    await page.waitForLoadState();
    return response.status();
  };
  const storedThreshold = async () =>
    (
      await pg.query<{ t: string }>(
        'SELECT threshold_micro::text AS t FROM billing.balance_alerts WHERE account_id = $1 AND threshold_micro IS NOT NULL',
        [holder.accountId],
      )
    ).rows.map((r) => Number(r.t));

  it("shows the balance, spent today, the 7 days' average and how long the balance lasts, as the ledger has them", async () => {
    for (let i = 0; i < DAYS_BACK.length; i++) await chat('Tell me a long story [[sim:words=2000]]');
    await untilLedgerHas(DAYS_BACK.length);
    const rows = await ledgerRows();
    for (const [i, back] of DAYS_BACK.entries()) {
      if (back > 0)
        await pg.query('UPDATE billing.ledger SET created_at = created_at - make_interval(days => $2) WHERE request_id = $1', [
          rows[i].request_id,
          back,
        ]);
    }
    const books = await ledger();
    expect(books.balance).toBe(START_BALANCE_MICRO - books.all);
    expect(books.today).toBeGreaterThan(0);
    expect(books.last7).toBeGreaterThan(0);
    expect(books.today + books.last7).toBeLessThan(books.all);

    const { page } = holder;
    await page.getByRole('link', { name: 'Money and use' }).click();
    await page.waitForURL(/\/usage$/);
    expect(await figure(page, 'balance')).toBe(lyd(books.balance));
    expect(await figure(page, 'spent-today')).toBe(lyd(books.today));
    expect(await figure(page, 'daily-average')).toBe(lyd(Math.round(books.last7 / 7)));
    const days = Math.floor((books.balance * 7) / books.last7);
    expect(days).toBeGreaterThan(1);
    expect(await figure(page, 'days-left')).toBe(`About ${days.toLocaleString('en-US')} days`);
    expect(await figure(page, 'held')).toBe('0 LYD');
    expect(await banner(page).count()).toBe(0);
    // The requests billed keep whether each was paid or free, why it ended and its usage reported or estimated.
    const billed = await page.locator('section', { hasText: 'Requests billed' }).locator('tbody tr').allInnerTexts();
    expect(billed).toHaveLength(DAYS_BACK.length);
    expect(billed.every((r) => r.includes('paid') && r.includes('complete') && r.includes('reported'))).toBe(true);
    await shot(page, '01-money-figures');
  });

  it('shows what a running request holds while it runs, and nothing once it has ended', async () => {
    const { page } = holder;
    const slow = chat('Take your time [[sim:delay_ms=6000]]');
    const heldShown = async () => {
      await page.reload();
      return figure(page, 'held');
    };
    const held = await eventually(heldShown, (shown) => shown !== '0 LYD', { timeoutMs: 5000, intervalMs: 0 });
    // Its worst case: the prompt estimate at 1 LYD and 3,000 tokens at 4 LYD per million.
    expect(microOf(held)).toBeGreaterThanOrEqual(12_000);
    expect(microOf(held)).toBeLessThan(17_000);
    await shot(page, '02-money-held');
    await slow;
    await untilLedgerHas(DAYS_BACK.length + 1);
    await page.reload();
    expect(await figure(page, 'held')).toBe('0 LYD');
    expect(await figure(page, 'spent-today')).toBe(lyd((await ledger()).today));
  });

  it('shows a banner on the money and keys pages once the balance is at or below the alert the holder set, and none below it', async () => {
    const { page } = holder;
    const { balance } = await ledger();
    expect(await page.locator('#threshold-now').innerText()).toBe('No alert is set.');

    expect(await setThreshold(page, '1')).toBe(303);
    expect(await storedThreshold()).toEqual([1_000_000]);
    await expect(banner(page).innerText()).resolves.toContain(`The API balance is ${lyd(balance)}, at or below the alert set at 1 LYD.`);
    expect(await page.locator('#threshold-now').innerText()).toContain('at or below 1 LYD');
    expect(await page.getByLabel(/^Alert at or below/).inputValue()).toBe('1');
    await shot(page, '03-low-balance-banner');
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.waitForURL(/\/keys$/);
    expect(await banner(page).isVisible()).toBe(true);
    await shot(page, '04-keys-low-balance');

    // At the balance exactly: still low. A micro-LYD below it: not.
    await page.goto(`${stack.consoleUrl}/usage`);
    expect(await setThreshold(page, typed(balance))).toBe(303);
    expect(await banner(page).count()).toBe(1);
    expect(await setThreshold(page, typed(balance - 1))).toBe(303);
    expect(await storedThreshold()).toEqual([balance - 1]);
    expect(await banner(page).count()).toBe(0);
    await page.goto(`${stack.consoleUrl}/keys`);
    expect(await banner(page).count()).toBe(0);
  });

  it('says what is wrong with a threshold that is not an amount of LYD, keeps what was typed, and changes nothing', async () => {
    const { page } = holder;
    await page.goto(`${stack.consoleUrl}/usage`);
    const before = await storedThreshold();
    const refusals: [string, string][] = [
      ['-1', 'The threshold cannot be below 0 LYD.'],
      ['0.0000001', 'The threshold has more than 6 decimals: the smallest amount is 0.000001 LYD.'],
      ['5 LYD', 'The threshold is not an amount in LYD: "5 LYD" (write digits, a point and up to 6 decimals, e.g. 12.5).'],
      ['99999999999', 'The threshold is beyond 9007199254.740991 LYD, the largest amount kept exactly.'],
    ];
    for (const [value, problem] of refusals) {
      expect(await setThreshold(page, value)).toBe(400);
      expect(await page.getByRole('alert').innerText()).toBe(problem);
      expect(await page.getByLabel(/^Alert at or below/).inputValue()).toBe(value);
      // The field is brought into view with the reason, however far down a phone's page it is.
      await expect(
        page.waitForFunction("document.activeElement && document.activeElement.id === 'threshold'", undefined, { timeout: 2000 }),
      ).resolves.toBeTruthy();
    }
    await shot(page, '05-threshold-refused');
    expect(await storedThreshold()).toEqual(before);
    // Without the session's form token: refused outright.
    const forged = await page.request.post(`${stack.consoleUrl}/usage/low-balance`, { form: { threshold: '100' }, maxRedirects: 0 });
    expect(forged.status()).toBe(403);
    expect(await storedThreshold()).toEqual(before);
    // A field sent twice is not read as either, nor as none.
    const csrf = await page.locator('form[action="/usage/low-balance"] input[name="_csrf"]').inputValue();
    const twice = await page.request.post(`${stack.consoleUrl}/usage/low-balance`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      data: new URLSearchParams([
        ['_csrf', csrf],
        ['threshold', '100'],
        ['threshold', ''],
      ]).toString(),
      maxRedirects: 0,
    });
    expect(twice.status()).toBe(400);
    expect(await twice.text()).toContain('The form sent no single threshold');
    expect(await storedThreshold()).toEqual(before);
    // Empty: no alert.
    expect(await setThreshold(page, '')).toBe(303);
    expect(await storedThreshold()).toEqual([]);
    expect(await page.locator('#threshold-now').innerText()).toBe('No alert is set.');
  });
});
