import { RunningStack } from '@gw/test-stack';

/** A holder signed in to the console over plain HTTP: their account, and requests with their session. */
export interface ConsoleSession {
  accountId: string;
  email: string;
  /** GET a page of the console, signed in: its HTML. */
  get(path: string): Promise<string>;
  /** POST a form of the console, signed in (with the session's form token): the answer's status. */
  post(path: string, fields: Record<string, string | string[]>): Promise<number>;
}

const cookiesOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(';')[0]);
const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Runs ctl against the stack: its JSON, or a thrown error naming the refusal. */
export async function ctlOk<T>(stack: RunningStack, ...args: string[]): Promise<T> {
  const { json, exitCode } = await stack.ctl(...args);
  if (exitCode !== 0) throw new Error(`ctl ${args.join(' ')} failed: ${JSON.stringify(json)}`);
  return json as T;
}

/**
 * A new account, its holder `email` invited (ctl) and signed in through the link as a browser
 * would, then `balance` LYD topped up, if given (so that its holder is there to be told).
 */
export async function consoleHolder(stack: RunningStack, email: string, balance?: string): Promise<ConsoleSession> {
  const { accountId } = await ctlOk<{ accountId: string }>(stack, 'account', 'create', '--name', 'Told');
  const { link } = await ctlOk<{ link: string }>(stack, 'console', 'invite', '--account', accountId, '--email', email);
  const url = link.replace(/^http:\/\/127\.0\.0\.1:\d+/, stack.consoleUrl);
  const form = await fetch(url);
  const formCookies = cookiesOf(form);
  const accepted = await fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: formCookies.join('; ') },
    body: new URLSearchParams({ _csrf: csrfOf(await form.text()), username: email, password: 'correct horse battery' }),
  });
  if (accepted.status !== 303) throw new Error(`invitation not accepted: ${accepted.status}`);
  const cookie = [...formCookies, ...cookiesOf(accepted)].join('; ');
  if (balance !== undefined) await ctlOk(stack, 'balance', 'add', '--account', accountId, '--amount', balance);
  const get = async (path: string) => (await fetch(`${stack.consoleUrl}${path}`, { headers: { cookie } })).text();
  return {
    accountId,
    email,
    get,
    post: async (path, fields) => {
      const body = new URLSearchParams({ _csrf: csrfOf(await get('/mail')) });
      for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) body.append(name, v);
      const res = await fetch(`${stack.consoleUrl}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body,
      });
      return res.status;
    },
  };
}
