import type { Browser, BrowserContext, Page } from 'playwright-core';
import { RunningStack } from '@gw/test-stack';

/** The password every holder of the console's browser tests sets. */
export const PASSWORD = 'correct horse battery';

/** A holder signed in: the account, the browser context and page it is signed in in, and the invitation link it used. */
export interface SignedInHolder {
  accountId: string;
  context: BrowserContext;
  page: Page;
  link: string;
  /** When the link would have expired, ISO-8601. */
  expires: string;
}

/** Runs ctl against the stack: its JSON, or a thrown error naming the refusal. */
export async function ctlOk<T>(stack: RunningStack, ...args: string[]): Promise<T> {
  const { json, exitCode } = await stack.ctl(...args);
  if (exitCode !== 0) throw new Error(`ctl ${args.join(' ')} failed: ${JSON.stringify(json)}`);
  return json as T;
}

/**
 * A new account (ctl, with `balance` LYD), its holder invited and signed in through the
 * invitation link in a phone-sized browser context of its own, on the keys page.
 */
export async function signedInHolder(
  stack: RunningStack,
  browser: Browser,
  email: string,
  account: { name?: string; balance?: string } = {},
): Promise<SignedInHolder> {
  const { accountId } = await ctlOk<{ accountId: string }>(
    stack,
    'account',
    'create',
    '--name',
    account.name ?? 'Acme',
    '--balance',
    account.balance ?? '5',
  );
  const { link, expires } = await ctlOk<{ link: string; expires: string }>(
    stack,
    'console',
    'invite',
    '--account',
    accountId,
    '--email',
    email,
  );
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const page = await context.newPage();
  await page.goto(link.replace(/^http:\/\/127\.0\.0\.1:\d+/, stack.consoleUrl));
  await page.getByLabel(/New password/).fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await page.waitForURL(/\/keys$/);
  return { accountId, context, page, link, expires };
}
