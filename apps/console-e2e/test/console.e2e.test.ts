import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';
import { eventually, launchChromium, screenshotDir } from '@gw/testing';
import { ctlOk as ctlOkOn, PASSWORD, SignedInHolder, signedInHolder } from './console-holder';

const KEY = /^sk-shfr-[0-9a-f]{40}$/;

/**
 * The web console in Debian's Chromium against the whole stack (docs/api.md#keys): an invited
 * holder sets a password and signs in, creates keys (shown once), revokes one (401 on the API
 * from the next request), sees a suspension and cannot create then; another holder can neither
 * see nor revoke the first one's keys, even by forging the form; wrong passwords are rate
 * limited; the activity page lists the holder's own account's audit entries only; signing out
 * ends the session. Each flow leaves a screenshot.
 */
describe('web console in a real browser', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let browser: Browser;
  const shots = screenshotDir(__filename);

  beforeAll(async () => {
    gw = await startGateway({ SIGN_IN_MAX_FAILURES: '3' });
    stack = gw.stack;
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await gw?.stop();
  }, 60_000);

  const ctlOk = <T>(...args: string[]): Promise<T> => ctlOkOn<T>(stack, ...args);
  const apiStatus = async (key: string) => (await fetch(`${stack.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } })).status;
  const shot = (page: Page, name: string) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });

  /** A new account, its holder invited and signed in through the invitation link: the holder's browser context and page. */
  const holder = async (email: string, name = 'Acme') => {
    const signedIn = await signedInHolder(stack, browser, email, { name });
    expect(Date.parse(signedIn.expires) - Date.now()).toBeGreaterThan(29 * 60_000);
    return signedIn;
  };
  const createKey = async (page: Page, name?: string) => {
    if (name !== undefined) await page.getByLabel(/^Name/).fill(name);
    await page.getByRole('button', { name: 'Create key' }).click();
    const value = await page.getByLabel('Key', { exact: true }).inputValue();
    expect(value).toMatch(KEY);
    return value;
  };
  const rowsOf = async (page: Page) => page.locator('tbody tr').allInnerTexts();

  let first: SignedInHolder;

  it('invites a holder who sets a password and signs in; the link works once', async () => {
    first = await holder('first@example.com');
    await expect(first.page.getByRole('heading', { name: 'Keys of Acme' }).isVisible()).resolves.toBe(true);
    await shot(first.page, '01-signed-in');
    const again = await first.context.newPage();
    const res = await again.goto(first.link.replace(/^http:\/\/127\.0\.0\.1:\d+/, stack.consoleUrl));
    expect(res?.status()).toBe(410);
    await again.close();
  });

  it('creates keys with and without a name; the value is shown once, gone after a reload, and works on the API', async () => {
    const { page } = first;
    const unnamed = await createKey(page);
    await expect(page.getByText('it will not be shown again').isVisible()).resolves.toBe(true);
    await shot(page, '02-key-shown-once');
    const named = await createKey(page, 'ci server');
    await page.reload();
    expect(await page.getByLabel('Key', { exact: true }).count()).toBe(0);
    expect(await page.content()).not.toContain(named);
    const rows = await rowsOf(page);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(`Key ${unnamed.slice(0, 12)}`);
    expect(rows[1]).toContain('ci server');
    expect(rows[1]).toContain(named.slice(0, 12));
    expect(rows.every((r) => r.includes('Never'))).toBe(true);
    expect(await apiStatus(named)).toBe(200);
    // "Last used" is written in batches: it moves within seconds.
    const rowsShown = async () => {
      await page.reload();
      return rowsOf(page);
    };
    expect((await eventually(rowsShown, (shown) => !shown[1].includes('Never'), { intervalMs: 0 }))[1]).not.toContain('Never');
    await shot(page, '03-key-list');
    await page.setViewportSize({ width: 1100, height: 700 });
    await shot(page, '03-key-list-wide');
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('takes a name of 33 emoji typed in the browser, and says why a name of 65 characters is refused', async () => {
    const { page } = first;
    await createKey(page, '🔑'.repeat(33));
    expect((await rowsOf(page)).some((r) => r.includes('🔑'.repeat(33)))).toBe(true);
    await page.getByLabel(/^Name/).fill('🇱🇾'.repeat(65));
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.getByRole('alert').innerText()).resolves.toBe('A key name is at most 64 characters.');
    await expect(page.getByLabel(/^Name/).inputValue()).resolves.toBe('🇱🇾'.repeat(65));
    await shot(page, '03-key-name-too-long');
  });

  it('revokes a key after a confirmation that says it cannot be undone; the API refuses it from the next request', async () => {
    const { page } = first;
    const key = await createKey(page, 'to revoke');
    expect(await apiStatus(key)).toBe(200);
    await page.getByRole('link', { name: 'Revoke to revoke' }).click();
    await expect(page.getByText('This cannot be undone.').isVisible()).resolves.toBe(true);
    await shot(page, '04-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.waitForURL(/\/keys$/);
    expect((await rowsOf(page)).some((r) => r.includes('to revoke'))).toBe(false);
    expect(await apiStatus(key)).toBe(401);
  });

  it('shows the balance, the free allowance, usage as GET /v1/usage tells it, a 30-day chart, the requests billed and the prices', async () => {
    const { page } = first;
    const key = await createKey(page, 'money');
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${stack.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'vendor-v4-flash', messages: [{ role: 'user', content: 'Hello there' }] }),
      });
      expect(res.status).toBe(200);
    }
    await page.getByRole('link', { name: 'Money and use' }).click();
    await page.waitForURL(/\/usage$/);
    const billedRows = async () => {
      await page.reload();
      return page.locator('section', { hasText: 'Requests billed' }).locator('tbody tr').count();
    };
    await eventually(billedRows, (n) => n >= 2, { intervalMs: 0 });
    const rows = await page.locator('section', { hasText: 'Requests billed' }).locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows.every((r) => r.includes('vendor-v4-flash') && r.includes('paid') && r.includes('reported'))).toBe(true);
    const api = (await (await fetch(`${stack.baseUrl}/usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      todayTokens: number;
      totalTokens: number;
    };
    expect(api.todayTokens).toBeGreaterThan(0);
    expect(await page.locator('#today-tokens').innerText()).toBe(api.todayTokens.toLocaleString('en-US'));
    expect(await page.locator('#total-tokens').innerText()).toBe(api.totalTokens.toLocaleString('en-US'));
    const balance = (await ctlOk<{ balance: number }>('account', 'show', '--account', first.accountId)).balance;
    expect(balance).toBeLessThan(5);
    expect(await page.locator('#balance').innerText()).toBe(`${balance.toLocaleString('en-US', { maximumFractionDigits: 6 })} LYD`);
    expect(await page.locator('#free-left').innerText()).toMatch(/^[\d,]+ of [\d,]+ tokens/);
    expect(await page.getByRole('img', { name: 'Tokens per day, last 30 days' }).count()).toBe(1);
    expect(await page.locator('details tbody tr').count()).toBe(30);
    const prices = await page.locator('section', { hasText: 'Prices of your models' }).locator('tbody tr').allInnerTexts();
    expect(prices[0]).toMatch(/vendor-v4-flash[\s\S]*1 LYD[\s\S]*4 LYD/);
    expect(prices.some((p) => p.includes('vendor-v4-pro'))).toBe(true);
    await shot(page, '08-money-and-use');
    await page.setViewportSize({ width: 1100, height: 700 });
    await shot(page, '08-money-and-use-wide');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.waitForURL(/\/keys$/);
  });

  it("shows a second holder only their own keys, and refuses a forged revoke of the first one's key", async () => {
    const firstKey = await createKey(first.page, 'keep me');
    const firstKeyId =
      (await ctlOk<{ id: string; name: string }[]>('key', 'list', '--account', first.accountId)).find((k) => k.name === 'keep me')?.id ??
      '';
    const second = await holder('second@example.com', 'Other');
    expect(await rowsOf(second.page)).toEqual([]);
    expect(await second.page.content()).not.toContain(firstKey.slice(0, 12));
    // The second holder's own form token, posted at the first holder's key id.
    const csrf = await second.page.locator('form[action="/keys"] input[name="_csrf"]').inputValue();
    const forged = await second.page.request.post(`${stack.consoleUrl}/keys/${firstKeyId}/revoke`, {
      form: { _csrf: csrf },
      maxRedirects: 0,
    });
    expect(forged.status()).toBe(303);
    expect(await apiStatus(firstKey)).toBe(200);
    expect(await second.page.goto(`${stack.consoleUrl}/keys/${firstKeyId}/revoke`).then((r) => r?.url())).toMatch(/\/keys$/);
    // A form without the session's token is refused outright.
    const tokenless = await second.page.request.post(`${stack.consoleUrl}/keys`, { form: { name: 'x' }, maxRedirects: 0 });
    expect(tokenless.status()).toBe(403);
    await second.context.close();
  });

  it('shows a suspended account its banner and refuses to create keys, in the page and on the server', async () => {
    const { page, accountId } = first;
    await ctlOk('account', 'suspend', '--account', accountId, '--reason', 'unpaid invoice', '--until', '2099-01-01T00:00:00Z');
    await page.reload();
    const banner = page.getByRole('alert').filter({ hasText: 'Account suspended' });
    await expect(banner.innerText()).resolves.toMatch(/unpaid invoice[\s\S]*WhatsApp/);
    await expect(page.getByRole('button', { name: 'Create key' }).isDisabled()).resolves.toBe(true);
    await shot(page, '05-suspended');
    const before = (await ctlOk<unknown[]>('key', 'list', '--account', accountId)).length;
    const csrf = await page.locator('form[action="/keys"] input[name="_csrf"]').inputValue();
    const forced = await page.request.post(`${stack.consoleUrl}/keys`, { form: { _csrf: csrf, name: 'sneaky' } });
    expect(forced.status()).toBe(400);
    expect(await forced.text()).toContain('suspended');
    expect((await ctlOk<unknown[]>('key', 'list', '--account', accountId)).length).toBe(before);
    await ctlOk('account', 'unsuspend', '--account', accountId);
  });

  it("shows the holder their own account's activity, newest first: their keys created and revoked, the operator's changes, nothing of another account", async () => {
    const { page, accountId } = first;
    const stranger = await ctlOk<{ accountId: string }>('account', 'create', '--name', 'Stranger');
    const strangersKey = await ctlOk<{ prefix: string }>('key', 'create', '--account', stranger.accountId, '--reason', 'not for Acme');
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(/\/activity$/);
    const rows = await page.locator('#activity tbody tr').allInnerTexts();
    const keys = await ctlOk<{ name: string }[]>('key', 'list', '--account', accountId);
    // Every key created here (the revoked one too) and the one revoke, each by the holder; the operator's suspension and its lifting; the opening balance.
    expect(rows).toHaveLength(keys.length + 1 + 1 + 2 + 1);
    expect(rows.filter((r) => /^.*UTC\s+Key .* created \(sk-shfr-[0-9a-f]{4}…\)\s+first@example\.com/.test(r))).toHaveLength(
      keys.length + 1,
    );
    expect(rows.filter((r) => r.includes('Key “to revoke” created'))).toHaveLength(1);
    expect(rows.filter((r) => /Key sk-shfr-[0-9a-f]{4}… revoked\s+first@example\.com/.test(r))).toHaveLength(1);
    expect(rows[0]).toMatch(/Suspension lifted\s+the operator/);
    expect(rows[1]).toMatch(/Account suspended until 2099-01-01 00:00 UTC\s+the operator\s+unpaid invoice/);
    expect(rows.at(-1)).toMatch(/Balance topped up by 5 LYD, to 5 LYD\s+the operator/);
    const content = await page.content();
    expect(content).not.toContain(strangersKey.prefix);
    expect(content).not.toContain('not for Acme');
    await shot(page, '09-activity');
    await page.setViewportSize({ width: 1100, height: 700 });
    await shot(page, '09-activity-wide');
    await page.setViewportSize({ width: 390, height: 844 });
  });

  it('rate limits wrong passwords: after 3 failures even the right one waits', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const signIn = async (password: string) => {
      await page.goto(`${stack.consoleUrl}/sign-in`);
      await page.getByLabel('Email').fill('first@example.com');
      await page.getByLabel('Password').fill(password);
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith('/sign-in') && r.request().method() === 'POST'),
        page.getByRole('button', { name: 'Sign in' }).click(),
      ]);
      return response.status();
    };
    expect([await signIn('wrong one 1'), await signIn('wrong one 2'), await signIn('wrong one 3')]).toEqual([401, 401, 401]);
    expect(await signIn(PASSWORD)).toBe(429);
    await expect(page.getByRole('alert').innerText()).resolves.toContain('Too many failed sign-ins');
    await shot(page, '06-rate-limited');
    await context.close();
  });

  it('ends the session on sign-out: its cookie no longer opens the keys page', async () => {
    const { page, context } = first;
    const cookie = (await context.cookies()).find((c) => c.name === 'gw_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in$/);
    await shot(page, '07-signed-out');
    const replay = await fetch(`${stack.consoleUrl}/keys`, { headers: { cookie: `gw_session=${cookie?.value}` }, redirect: 'manual' });
    expect(replay.status).toBe(303);
    expect(replay.headers.get('location')).toBe('/sign-in');
    await context.close();
  });
});
