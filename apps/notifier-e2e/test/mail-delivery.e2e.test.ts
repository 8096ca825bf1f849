import { PgHolderEvents } from '@gw/service-kit';
import { RunningStack } from '@gw/test-stack';
import { eventually } from '@gw/testing';
import { ConsoleSession, consoleHolder, ctlOk } from './console-session';
import { keepSample, MAIL_FROM, MailStack, startMailStack } from './mail-stack';

const MESSAGE_ID = /^(billing|auth)-service\.\d+\.[0-9a-f]{16}@gateway\.test$/;

/**
 * Holders' mail end to end: every kind of holder event recorded by auth- and billing-service is
 * mailed by the notifier through a real SMTP server (STARTTLS, AUTH), once, to each holder of the
 * account, with its headers, the figures and a link into the console; the kinds a holder switched
 * off are not mailed, security mail always is.
 */
describe('holders are mailed what happens to their account', () => {
  let m: MailStack;
  let stack: RunningStack;
  let ann: ConsoleSession;

  beforeAll(async () => {
    m = await startMailStack();
    stack = m.gw.stack;
    ann = await consoleHolder(stack, 'ann@example.com', '10');
  }, 120_000);
  afterAll(() => m?.stop(), 60_000);

  /** The sent mail of `kind` to ann: checks the headers every mail has, keeps it as a sample, and returns its subject and text. */
  const mailOf = async (kind: string) => {
    const { kept, caught } = await m.sentMail(ann.accountId, kind);
    expect(caught).toHaveLength(1);
    const [mail] = caught;
    expect(mail).toMatchObject({
      from: MAIL_FROM,
      to: 'ann@example.com',
      envelopeTo: ['ann@example.com'],
      autoSubmitted: 'auto-generated',
    });
    expect(mail.messageId).toMatch(MESSAGE_ID);
    expect(mail.messageId).toBe(kept.messageId);
    keepSample(kind, mail);
    return mail;
  };

  it('mails a top-up, with the amount, the balance after it and a link to the money page', async () => {
    const mail = await mailOf('top-up-credited');
    expect(mail.subject).toBe('Top-up of 10.00 LYD credited');
    expect(mail.text).toMatch(
      /A top-up of 10\.00 LYD was credited to account acct_\w+ at \d{4}-\d\d-\d\d \d\d:\d\d UTC\.\nThe balance is now 10\.00 LYD\./,
    );
    expect(mail.text).toContain(`${stack.consoleUrl}/usage`);
    expect(mail.text).toContain(`Choose what we mail you about: ${stack.consoleUrl}/mail`);
  });

  it('mails a balance fallen to the alert the holder set in the console, with both figures', async () => {
    expect(await ann.post('/usage/low-balance', { threshold: '9.5' })).toBe(303);
    await ctlOk(stack, 'balance', 'add', '--account', ann.accountId, '--amount', '-1');
    const mail = await mailOf('low-balance');
    expect(mail.subject).toBe('Low balance: 9.00 LYD left');
    expect(mail.text).toContain('fell to 9.00 LYD');
    expect(mail.text).toContain('at or below the alert you set at 9.50 LYD');
    expect(mail.text).toContain(`${stack.consoleUrl}/usage#low-balance-alert`);
  });

  it('mails a key created and revoked, naming it by name and prefix, never the key', async () => {
    const key = await ctlOk<{ id: string; key: string; prefix: string }>(
      stack,
      'key',
      'create',
      '--account',
      ann.accountId,
      '--name',
      'laptop',
    );
    const created = await mailOf('key-created');
    expect(created.subject).toBe(`New API key "laptop" (${key.prefix}…)`);
    expect(created.text).toContain(`If you did not create it, revoke it now: ${stack.consoleUrl}/keys`);
    expect(created.text).toContain('This is security mail');
    await ctlOk(stack, 'key', 'revoke', '--id', key.id);
    const revoked = await mailOf('key-revoked');
    expect(revoked.subject).toBe(`API key "laptop" (${key.prefix}…) revoked`);
    for (const mail of [created, revoked]) expect(`${mail.subject}\n${mail.text}`).not.toContain(key.key);
  });

  it('mails a suspension with its end and reason, and the suspension lifted', async () => {
    await ctlOk(stack, 'account', 'suspend', '--account', ann.accountId, '--until', '2031-01-02T03:04:00Z', '--reason', 'unpaid invoice');
    const suspended = await mailOf('account-suspended');
    expect(suspended.subject).toBe('Account suspended');
    expect(suspended.text).toContain('until 2031-01-02 03:04 UTC.\nReason: unpaid invoice');
    await ctlOk(stack, 'account', 'unsuspend', '--account', ann.accountId);
    expect((await mailOf('account-unsuspended')).text).toContain('requests with its keys are served again');
  });

  it('mails that a suspension ended at the end it was set with, once, saying that end', async () => {
    const until = new Date(Date.now() + 2000).toISOString();
    await ctlOk(stack, 'account', 'suspend', '--account', ann.accountId, '--until', until, '--reason', 'cooling off');
    // The lifted suspension's mail came first; this end's is the second of its kind.
    const ends = async () => (await m.keptMails(ann.accountId)).filter((mail) => mail.kind === 'account-unsuspended');
    const [, kept] = await eventually(ends, (found) => found.length === 2 && found[1].state === 'sent', {
      timeoutMs: 20_000,
      what: 'the mail of the suspension ended at its end time, sent',
    });
    const caught = m.catcher.byMessageId(kept.messageId);
    expect(caught).toHaveLength(1);
    expect(caught[0].subject).toBe('Account suspension ended');
    expect(caught[0].text).toContain(
      `ended at ${until.slice(0, 16).replace('T', ' ')} UTC, the end it was set with: requests with its keys are served again.`,
    );
    keepSample('account-unsuspended-at-its-end', caught[0]);
    const row = await m.pg.query('SELECT suspended, suspended_until, suspension_reason FROM auth.accounts WHERE id = $1', [ann.accountId]);
    expect(row.rows).toEqual([{ suspended: false, suspended_until: null, suspension_reason: null }]);
  });

  it('mails once that the balance can no longer pay, when a request finds it short', async () => {
    // 0.1 LYD left (still below the alert: no second low-balance mail), and a request that would hold 0.52 LYD.
    await ctlOk(stack, 'balance', 'add', '--account', ann.accountId, '--amount', '-8.9');
    const { key } = await ctlOk<{ key: string }>(stack, 'key', 'create', '--account', ann.accountId, '--name', 'big asks');
    const ask = () => m.gw.chat(key, { model: 'vendor-v4-pro', max_tokens: 32_768, messages: [{ role: 'user', content: 'Hello' }] });
    await eventually(
      async () => {
        await (await ask()).text();
        return (await m.keptMails(ann.accountId)).some((mail) => mail.kind === 'balance-exhausted');
      },
      { timeoutMs: 20_000, intervalMs: 500, what: 'a request the balance cannot cover' },
    );
    await (await ask()).text();
    const mail = await mailOf('balance-exhausted');
    expect(mail.subject).toBe('Your balance can no longer pay for requests');
    expect(mail.text).toContain('its balance (0.10 LYD) has left to lend');
    expect(mail.text).toContain('Until the balance is topped up, requests are tried as free requests, or refused (402).');
    expect((await m.keptMails(ann.accountId)).filter((k) => k.kind === 'balance-exhausted' || k.kind === 'low-balance')).toHaveLength(2);
  });

  it('mails a suspected key leak as security mail, naming the key as its holder knows it, with the reason and the figures', async () => {
    const key = await ctlOk<{ id: string; prefix: string }>(stack, 'key', 'create', '--account', ann.accountId, '--name', 'ci runner');
    // Recorded as billing-service records it, with the key's id only (its leak rule's own tests make it happen).
    const events = new PgHolderEvents('billing');
    await events.record(m.pg, {
      accountId: ann.accountId,
      kind: 'key-leak-suspected',
      details: { keyId: key.id, reason: 'spend jumped far above its usual hour', lastHourMicro: 4_200_000 },
    });
    const mail = await mailOf('key-leak-suspected');
    expect(mail.subject).toBe(`Security: key "ci runner" (${key.prefix}…) may have leaked`);
    expect(mail.text).toContain('looked like a leak: spend jumped far above its usual hour.\n  last hour: 4.20 LYD\n');
    expect(mail.text).toContain(`revoke the key now: ${stack.consoleUrl}/keys`);
  });

  it('does not mail the kinds a holder switched off, and mails security ones whatever is sent', async () => {
    const bob = await consoleHolder(stack, 'bob@example.com');
    // Every box but the low balance left unticked, and a security kind asked off with a forged field.
    expect(await bob.post('/mail/switches', { on: ['low-balance'] })).toBe(303);
    expect(await bob.post('/usage/low-balance', { threshold: '5' })).toBe(303);
    const page = await bob.get('/mail');
    expect(page).toMatch(/<input type="checkbox" name="on" value="top-up-credited"\s*\/>/);
    await ctlOk(stack, 'balance', 'add', '--account', bob.accountId, '--amount', '11');
    await ctlOk(stack, 'account', 'suspend', '--account', bob.accountId, '--reason', 'checking');
    await ctlOk(stack, 'account', 'unsuspend', '--account', bob.accountId);
    const { id } = await ctlOk<{ id: string }>(stack, 'key', 'create', '--account', bob.accountId, '--name', 'kept on');
    await ctlOk(stack, 'key', 'revoke', '--id', id);
    await ctlOk(stack, 'balance', 'add', '--account', bob.accountId, '--amount', '-6.5');
    // Each stream hands its events over in order: once its last event's mail is sent, the ones before were taken.
    await m.sentMail(bob.accountId, 'low-balance');
    await m.sentMail(bob.accountId, 'key-revoked');
    expect((await m.keptMails(bob.accountId)).map((mail) => mail.kind).sort()).toEqual(['key-created', 'key-revoked', 'low-balance']);
    const taken = await m.pg.query<{ kind: string }>('SELECT kind FROM notifier.taken_events WHERE account_id = $1', [bob.accountId]);
    expect(taken.rows.map((r) => r.kind)).toEqual(expect.arrayContaining(['top-up-credited', 'account-suspended', 'account-unsuspended']));
    expect(m.catcher.mails.filter((mail) => mail.to === 'bob@example.com').map((mail) => mail.subject)).not.toContainEqual(
      expect.stringMatching(/Top-up|suspen/),
    );
  });

  it('sent every mail once', async () => {
    const ids = m.catcher.mails.map((mail) => mail.messageId);
    expect(ids.length).toBeGreaterThanOrEqual(10);
    expect(new Set(ids).size).toBe(ids.length);
    // The suspension that ended at its end was told once, however many checks ran since.
    expect((await m.keptMails(ann.accountId)).filter((mail) => mail.kind === 'account-unsuspended')).toHaveLength(2);
  });
});
