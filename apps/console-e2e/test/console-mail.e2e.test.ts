import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually, launchChromium, screenshotDir } from '@gw/testing';
import { ctlOk, SignedInHolder, signedInHolder } from './console-holder';

/**
 * Holders' mail in Debian's Chromium against the whole stack with no mail server (as `npm start`
 * runs it): the mails the notifier keeps in its outbox, listed with their text on the Mail page,
 * and the switches that turn a kind of mail off, security mail shown on and unchangeable.
 */
describe('the Mail page, in a real browser, with no mail server', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let browser: Browser;
  let holder: SignedInHolder;
  const shots = screenshotDir(__filename);

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    browser = await launchChromium();
    holder = await signedInHolder(stack, browser, 'mail@example.com', { name: 'Told', balance: '5' });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  }, 60_000);

  const shot = async (page: Page, name: string) => {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
    await page.setViewportSize({ width: 1100, height: 700 });
    await page.screenshot({ path: join(shots, `${name}-wide.png`), fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
  };
  /** The Mail page, loaded again until its list has a mail with this subject. */
  const mailPageWith = async (page: Page, subject: string) =>
    eventually(
      async () => {
        await page.goto(`${stack.consoleUrl}/mail`);
        return page.locator('#mails summary', { hasText: subject }).count();
      },
      (n) => n === 1,
      { timeoutMs: 20_000, intervalMs: 300, what: `the mail "${subject}" listed` },
    );

  it('lists the mails kept in the outbox, newest first, each with its text', async () => {
    const { page } = holder;
    await ctlOk(stack, 'balance', 'add', '--account', holder.accountId, '--amount', '2');
    const key = await ctlOk<{ prefix: string }>(stack, 'key', 'create', '--account', holder.accountId, '--name', 'laptop');
    await mailPageWith(page, 'Top-up of 2.00 LYD credited');
    await mailPageWith(page, `New API key "laptop" (${key.prefix}…)`);
    const row = page.locator('#mails tr[data-kind="top-up-credited"]', { hasText: 'Top-up of 2.00 LYD' });
    await row.locator('summary').click();
    const text = await row.locator('.mail-text').innerText();
    expect(text).toContain('A top-up of 2.00 LYD was credited to account');
    expect(text).toContain(`${stack.consoleUrl}/usage`);
    expect(await row.innerText()).toContain('kept here (no mail server)');
    expect(await row.innerText()).toContain('mail@example.com');
    await shot(page, 'mail-kept');
  });

  it('switches a kind of mail off, keeps security mail on, and mails nothing of the kind switched off', async () => {
    const { page } = holder;
    await page.goto(`${stack.consoleUrl}/mail`);
    const topUps = page.getByLabel('A top-up was credited');
    const keysCreated = page.getByLabel(/A key was created/);
    expect(await topUps.isChecked()).toBe(true);
    expect(await keysCreated.isChecked()).toBe(true);
    expect(await keysCreated.isDisabled()).toBe(true);
    await topUps.uncheck();
    await Promise.all([page.waitForURL(/\/mail#mail-switches$/), page.getByRole('button', { name: 'Save' }).click()]);
    expect(await page.getByLabel('A top-up was credited').isChecked()).toBe(false);
    expect(await page.getByLabel('The balance fell to or below your low-balance alert').isChecked()).toBe(true);
    await shot(page, 'mail-switches');

    // A top-up switched off, then a fall below the alert: billing-service hands its events over in
    // order, so once the low balance is listed, the top-up before it was taken, and mailed no one.
    await ctlOk(stack, 'balance', 'add', '--account', holder.accountId, '--amount', '3');
    await page.goto(`${stack.consoleUrl}/usage`);
    await page.getByLabel(/^Alert at or below/).fill('9.5');
    await Promise.all([page.waitForURL(/\/usage#low-balance-alert$/), page.getByRole('button', { name: 'Save alert' }).click()]);
    await ctlOk(stack, 'balance', 'add', '--account', holder.accountId, '--amount', '-1');
    await mailPageWith(page, 'Low balance: 9.00 LYD left');
    expect(await page.locator('#mails summary', { hasText: 'Top-up of 3.00 LYD' }).count()).toBe(0);
    await shot(page, 'mail-after-switch');
  });
});
