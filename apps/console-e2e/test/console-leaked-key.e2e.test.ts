import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import type { Browser, Page } from 'playwright-core';
import { microToLyd, SPEND_RULE } from '@gw/money';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually, launchChromium, screenshotDir } from '@gw/testing';
import { ctlOk, SignedInHolder, signedInHolder } from './console-holder';

/** The usual busy hour of the account's history, micro-LYD: a few requests an hour. */
const USUAL_HOUR_MICRO = 20_000;
/** How long the idle key rested: a day past the rule's idle time. */
const RESTED_DAYS = SPEND_RULE.idleMs / 86_400_000 + 1;
/** About 200 KB of prompt: some 50,000 tokens, 0.2 LYD of the pro model's input. */
const BIG_PROMPT = 'Summarise these notes. '.repeat(9000);

/** An amount as the console writes it. */
const lyd = (micro: number) => `${microToLyd(micro).toLocaleString('en-US', { maximumFractionDigits: 6 })} LYD`;

interface ShownAlert {
  id: number;
  keyId: string;
  reason: string;
  lastHour: number;
  keyLastHour: number;
  usualHour: number;
  threshold: number;
  closed: { at: string; closing: string; by: string } | null;
}

/**
 * A leaked key caught early, in Debian's Chromium against the whole stack
 * (docs/architecture.md#a-leaked-key-caught-early): the account has weeks of quiet history (written
 * by SQL: a test cannot wait for it); a key of it then spends at the limit through the real edge
 * (pro model, large prompts, 3 at a time). billing-service raises one alert, shown at the top of the
 * keys and money pages naming the key with the figures; the holder revokes the key from there (the
 * revoke confirmation), which closes the alert, and the key's next request is refused with 401. A
 * key unbilled for weeks that spends again is flagged too, and dismissed from the money page.
 */
describe('a leaked key flagged in the console, and revoked from there, in a real browser', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let browser: Browser;
  let pg: PgClient;
  let holder: SignedInHolder;
  /** The key that leaks (the first test's), its value kept for its request after the revocation. */
  let leaked: { id: string; key: string; prefix: string };
  const shots = screenshotDir(__filename);

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    pg = new PgClient({ connectionString: stack.env.DATABASE_URL });
    await pg.connect();
    browser = await launchChromium();
    holder = await signedInHolder(stack, browser, 'leak@example.com', { name: 'Watched', balance: '100' });
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
  const newKey = (name: string) =>
    ctlOk<{ id: string; key: string; prefix: string }>(stack, 'key', 'create', '--account', holder.accountId, '--name', name);
  /** A paid request of the pro model through the edge: its status. */
  const chat = async (key: string, content: string) => {
    const res = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-pro', max_tokens: 4000, messages: [{ role: 'user', content }] }),
    });
    await res.arrayBuffer();
    return res.status;
  };
  const alerts = (...flags: string[]) => ctlOk<ShownAlert[]>(stack, 'alert', 'list', '--account', holder.accountId, ...flags);
  const banner = (page: Page) => page.locator('#spend-alerts');

  it('flags a key spending at the limit past the account’s usual hour, naming it with the figures, on the keys and money pages', async () => {
    const steady = await newKey('backend');
    const leakedKey = await newKey('laptop');
    await pg.query(
      `INSERT INTO billing.spend_hours (account_id, hour_at, key_id, spend_micro, requests)
       SELECT $1, date_bin('1 hour', now(), timestamptz 'epoch') - make_interval(hours => h), $2, $3, 4 FROM generate_series(2, 28 * 24) h`,
      [holder.accountId, steady.id, USUAL_HOUR_MICRO],
    );
    // The leak: 3 at a time, each round once the last one is billed, until it spent past the floor in the hour.
    leaked = leakedKey;
    const ledgerOf = async (keyId: string) =>
      (
        await pg.query<{ n: number; spent: string }>(
          'SELECT count(*)::int AS n, coalesce(sum(amount_micro), 0)::text AS spent FROM billing.ledger WHERE key_id = $1',
          [keyId],
        )
      ).rows[0];
    for (let round = 1; Number((await ledgerOf(leakedKey.id)).spent) <= SPEND_RULE.floorMicro; round++) {
      expect(await Promise.all([1, 2, 3].map(() => chat(leakedKey.key, `${BIG_PROMPT} [[sim:words=300]]`)))).toEqual([200, 200, 200]);
      await eventually(
        () => ledgerOf(leakedKey.id),
        (l) => l.n === 3 * round,
        { timeoutMs: 15_000 },
      );
    }
    const raised = () => alerts();
    const [alert, ...more] = await eventually(raised, (open) => open.length > 0, { timeoutMs: 15_000 });
    expect(more).toEqual([]);
    expect(alert).toMatchObject({ keyId: leakedKey.id, reason: 'spend-jump', usualHour: microToLyd(USUAL_HOUR_MICRO), closed: null });
    expect(alert.threshold).toBe(microToLyd(Math.max(SPEND_RULE.floorMicro, SPEND_RULE.multiple * USUAL_HOUR_MICRO)));
    expect(alert.lastHour).toBeGreaterThan(alert.threshold);

    const { page } = holder;
    await page.reload();
    const shown = await banner(page).innerText();
    expect(shown).toContain('A key may have leaked');
    expect(shown).toContain('Key “laptop”');
    expect(shown).toContain(`${leakedKey.prefix}…`);
    expect(shown).toContain(`spent ${lyd(Math.round(alert.keyLastHour * 1e6))} in the last hour`);
    expect(shown).toContain(`The account's usual busy hour is ${lyd(USUAL_HOUR_MICRO)}`);
    await shot(page, '01-keys-leak-flagged');
    await page.getByRole('link', { name: 'Money and use' }).click();
    await page.waitForURL(/\/usage$/);
    expect(await banner(page).innerText()).toContain('Key “laptop”');
    await shot(page, '02-money-leak-flagged');
  }, 120_000);

  it('revokes the key from the alert, with the confirmation; the alert closes and the key’s next request is refused with 401', async () => {
    const { page } = holder;
    const [alert] = await alerts();
    expect(alert.keyId).toBe(leaked.id);
    await page.goto(`${stack.consoleUrl}/keys`);
    await banner(page).getByRole('button', { name: 'Revoke key “laptop”' }).click();
    await expect(page.getByText('This cannot be undone.').isVisible()).resolves.toBe(true);
    await shot(page, '03-revoke-from-alert');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/keys$/);
    expect(await banner(page).count()).toBe(0);
    expect((await page.locator('tbody tr').allInnerTexts()).some((r) => r.includes('laptop'))).toBe(false);
    await shot(page, '04-leaked-key-revoked');
    expect(await alerts()).toEqual([]);
    expect((await alerts('--closed')).find((a) => a.id === alert.id)?.closed).toMatchObject({
      closing: 'key-revoked',
      by: 'holder:leak@example.com',
    });
    // The revoked key's next request: 401 INVALID_API_KEY.
    const res = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${leaked.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-v4-pro', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('INVALID_API_KEY');
  });

  it('flags a key unbilled for weeks that spends again, and lets the holder dismiss the alert from the money page', async () => {
    const old = await newKey('old cron');
    expect(await chat(old.key, 'A first request [[sim:words=5]]')).toBe(200);
    const billed = async () =>
      (await pg.query('SELECT 1 FROM billing.spend_keys WHERE account_id = $1 AND key_id = $2', [holder.accountId, old.id])).rowCount;
    await eventually(billed, (n) => n === 1, { timeoutMs: 15_000 });
    await pg.query(
      `UPDATE billing.spend_keys SET last_billed_at = now() - make_interval(days => $3) WHERE account_id = $1 AND key_id = $2`,
      [holder.accountId, old.id, RESTED_DAYS],
    );
    expect(await chat(old.key, `${BIG_PROMPT} [[sim:words=300]]`)).toBe(200);
    const [alert] = await eventually(
      () => alerts(),
      (open) => open.length > 0,
      { timeoutMs: 15_000 },
    );
    expect(alert).toMatchObject({ keyId: old.id, reason: 'idle-key' });

    const { page } = holder;
    await page.goto(`${stack.consoleUrl}/usage`);
    expect(await banner(page).innerText()).toContain('Key “old cron”');
    expect(await banner(page).innerText()).toContain(`had not been used for ${RESTED_DAYS} days`);
    await shot(page, '05-money-idle-key-flagged');
    await banner(page).getByRole('button', { name: 'Dismiss: this spending was ours' }).click();
    await page.waitForURL(/\/usage$/);
    expect(await banner(page).count()).toBe(0);
    expect(await alerts()).toEqual([]);
    expect((await alerts('--closed')).find((a) => a.id === alert.id)?.closed).toMatchObject({
      closing: 'dismissed',
      by: 'holder:leak@example.com',
    });
    // The key still works: dismissing is the holder saying the spending was theirs.
    expect(await chat(old.key, 'Still mine [[sim:words=5]]')).toBe(200);
    await shot(page, '06-idle-key-dismissed');
  });
});
