import { GatewayUnderTest, RunningStack, startGateway } from '@gw/test-stack';

const PASSWORD = 'a password of the holder';

/**
 * What a careless or hostile client sends the console: each gets its 4xx page, never a 500,
 * and nothing is logged at error level. Key names are counted as a person counts characters.
 */
describe('console pages given input at fault', () => {
  let gw: GatewayUnderTest;
  let stack: RunningStack;
  let accountId: string;
  let session: { cookie: string; csrf: string };

  beforeAll(async () => {
    gw = await startGateway();
    stack = gw.stack;
    accountId = ((await stack.ctl('account', 'create', '--name', 'Input')).json as { accountId: string }).accountId;
    const { link } = (await stack.ctl('console', 'invite', '--account', accountId, '--email', 'input@example.com')).json as {
      link: string;
    };
    const invite = link.replace(/^http:\/\/127\.0\.0\.1:\d+/, stack.consoleUrl);
    const form = await fetch(invite);
    const formCookie = form.headers.getSetCookie()[0].split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const accepted = await post(invite, new URLSearchParams({ _csrf: csrf, password: PASSWORD }).toString(), formCookie);
    expect(accepted.status).toBe(303);
    const cookie =
      accepted.headers
        .getSetCookie()
        .map((c) => c.split(';')[0])
        .find((c) => c.startsWith('gw_session=')) ?? '';
    const keys = await fetch(`${stack.consoleUrl}/keys`, { headers: { cookie } });
    session = { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(await keys.text())?.[1] ?? '' };
  }, 90_000);

  afterAll(async () => {
    await gw?.stop();
  }, 60_000);

  function post(url: string, body: string | Buffer, cookie: string) {
    return fetch(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body,
      redirect: 'manual',
    });
  }
  const createKey = (name: string) =>
    post(`${stack.consoleUrl}/keys`, new URLSearchParams({ _csrf: session.csrf, name }).toString(), session.cookie);
  const keyNames = async () => ((await stack.ctl('key', 'list', '--account', accountId)).json as { name: string }[]).map((k) => k.name);
  const consoleErrors = () => stack.logs.filter((line) => line.includes('"service":"console"') && line.includes('"level":"error"'));

  it('answers a cookie that is not valid percent-encoding as no cookie', async () => {
    const keys = await fetch(`${stack.consoleUrl}/keys`, { headers: { cookie: 'gw_session=%E0%A4%A' }, redirect: 'manual' });
    expect([keys.status, keys.headers.get('location')]).toEqual([303, '/sign-in']);
    const signIn = await fetch(`${stack.consoleUrl}/sign-in`, { headers: { cookie: 'gw_form=%ZZ; gw_device=%' } });
    expect(signIn.status).toBe(200);
  });

  it('refuses a key name with a control character, saying why, and creates nothing', async () => {
    const before = await keyNames();
    for (const name of ['nul\u0000inside', 'line\nbreak']) {
      const res = await createKey(name);
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('A key name cannot hold control characters.');
    }
    expect(await keyNames()).toEqual(before);
  });

  it('counts a key name as a person counts it: 33 emoji or 64 flags are a name, 65 flags too long', async () => {
    expect((await createKey('🔑'.repeat(33))).status).toBe(200);
    expect((await createKey('🇱🇾'.repeat(64))).status).toBe(200);
    const tooLong = await createKey('🇱🇾'.repeat(65));
    expect(tooLong.status).toBe(400);
    expect(await tooLong.text()).toContain('A key name is at most 64 characters.');
    expect(await keyNames()).toEqual(expect.arrayContaining(['🔑'.repeat(33), '🇱🇾'.repeat(64)]));
    expect(await keyNames()).not.toContain('🇱🇾'.repeat(65));
  });

  it('answers 413 to a form of 17 KB, one of 1,200 fields and a sign-in body of 5 MB', async () => {
    const large = await createKey('k'.repeat(17 * 1024));
    const fields = await post(`${stack.consoleUrl}/keys`, Array.from({ length: 1200 }, (_, i) => `f${i}=x`).join('&'), session.cookie);
    const huge = await post(`${stack.consoleUrl}/sign-in`, Buffer.alloc(5 * 1024 * 1024, 'a'), '');
    for (const res of [large, fields, huge]) {
      expect(res.status).toBe(413);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('more than the console accepts');
    }
  });

  it('takes a revoke of an id no key can have as an unknown key, and answers 415 to a charset it cannot read', async () => {
    const revoke = await post(
      `${stack.consoleUrl}/keys/${'x'.repeat(5000)}/revoke`,
      new URLSearchParams({ _csrf: session.csrf }).toString(),
      session.cookie,
    );
    expect([revoke.status, revoke.headers.get('location')]).toEqual([303, '/keys']);
    const unreadable = await fetch(`${stack.consoleUrl}/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=koi8-r' },
      body: 'a=b',
    });
    expect(unreadable.status).toBe(415);
  });

  it('answers 400 to an address with an escape it cannot decode, and a sign-in name with a NUL as a wrong sign-in', async () => {
    const revoke = await post(
      `${stack.consoleUrl}/keys/%E0%A4%A/revoke`,
      new URLSearchParams({ _csrf: session.csrf }).toString(),
      session.cookie,
    );
    const invite = await fetch(`${stack.consoleUrl}/invite/%E0%A4%A`);
    for (const res of [revoke, invite]) {
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('could not read that address');
    }
    const signIn = await fetch(`${stack.consoleUrl}/sign-in`);
    const cookie = signIn.headers.getSetCookie()[0].split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await signIn.text())?.[1] ?? '';
    const nul = await post(
      `${stack.consoleUrl}/sign-in`,
      new URLSearchParams({ _csrf: csrf, email: 'input\u0000@example.com', password: PASSWORD }).toString(),
      cookie,
    );
    expect(nul.status).toBe(401);
    expect(await nul.text()).toContain('Wrong email or password.');
  });

  it('logged none of it as an error', () => {
    expect(consoleErrors()).toEqual([]);
  });
});
