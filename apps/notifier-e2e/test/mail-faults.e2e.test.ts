import { RunningStack, scrapeMetrics } from '@gw/test-stack';
import { eventually } from '@gw/testing';
import { ConsoleSession, consoleHolder, ctlOk } from './console-session';
import { MailStack, startMailStack } from './mail-stack';

/**
 * Every mail arrives once through faults: a mail server that refuses for a while (the notifier
 * backs off and tries again), billing-service killed (SIGKILL) between recording an event and the
 * notifier reading it, and the notifier killed (SIGKILL) while a mail it took is being sent.
 */
describe('holders get each mail once, whatever fails on the way', () => {
  let m: MailStack;
  let stack: RunningStack;
  let holder: ConsoleSession;
  let topUps = 0;

  beforeAll(async () => {
    m = await startMailStack();
    stack = m.gw.stack;
    holder = await consoleHolder(stack, 'faults@example.com');
  }, 120_000);
  afterAll(() => m?.stop(), 60_000);

  /** A top-up of a new amount (its mail told apart by it): the amount, as the mail writes it. */
  const topUp = async () => {
    const amount = `${++topUps}.25`;
    await ctlOk(stack, 'balance', 'add', '--account', holder.accountId, '--amount', amount);
    return `Top-up of ${amount} LYD credited`;
  };
  /** The mails the catcher took with this subject. */
  const caught = (subject: string) => m.catcher.mails.filter((mail) => mail.subject === subject);
  /** Waits until the notifier has sent the mail with this subject, then returns the catcher's copies of it. */
  const sentOnce = async (subject: string, timeoutMs = 30_000) => {
    await eventually(
      () => caught(subject).length,
      (n) => n > 0,
      { timeoutMs, what: `"${subject}" received` },
    );
    const messageId = caught(subject)[0].messageId;
    await eventually(
      async () => (await m.keptMails(holder.accountId)).find((k) => k.messageId === messageId)?.state,
      (state) => state === 'sent',
      { timeoutMs, what: `"${subject}" marked sent` },
    );
    return caught(subject);
  };

  it('backs off while the mail server refuses, then delivers the mail once', async () => {
    m.catcher.refuseNext(3);
    const refusedBefore = m.catcher.refusedCount;
    const subject = await topUp();
    expect(await sentOnce(subject)).toHaveLength(1);
    expect(m.catcher.refusedCount - refusedBefore).toBe(3);
    const metrics = await scrapeMetrics(stack.metricsUrls.notifier);
    expect(metrics.value('notifier_mail_send_attempts_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(3);
    expect((await m.keptMails(holder.accountId)).find((k) => caught(subject)[0].messageId === k.messageId)?.attempts).toBe(4);
    // Logged without the server's password.
    expect(stack.logs.some((line) => line.includes('mail not taken by the mail server') && line.includes('451'))).toBe(true);
    expect(stack.logs.filter((line) => line.includes('mail server password'))).toEqual([]);
  });

  it('mails an event once when billing-service is killed between recording it and the notifier reading it', async () => {
    // The notifier away: the event is recorded, then billing-service dies before anyone read it.
    await stack.stopApp('notifier');
    const unread = await topUp();
    await stack.killApp('billing-service');
    await stack.startApp('billing-service');
    await stack.startApp('notifier');
    expect(await sentOnce(unread)).toHaveLength(1);
    // Killed the moment the event commits, the notifier following: read or not, it is mailed once.
    const racing = await topUp();
    await stack.killApp('billing-service');
    await stack.startApp('billing-service');
    expect(await sentOnce(racing)).toHaveLength(1);
  });

  it('mails once when the notifier is killed while the mail server holds a mail it took', async () => {
    const held = m.catcher.holdNextMail();
    const subject = await topUp();
    const mail = await held;
    expect(mail.subject).toBe(subject);
    await stack.killApp('notifier');
    await eventually(() => m.catcher.heldConnectionClosed(), { what: "the killed notifier's connection closed" });
    m.catcher.letGo();
    expect(caught(subject)).toEqual([]);
    await stack.startApp('notifier');
    // Sent again once its claim has lapsed, with the same Message-ID.
    const received = await sentOnce(subject);
    expect(received).toHaveLength(1);
    expect(received[0].messageId).toBe(mail.messageId);
  });

  it('sent every mail once', () => {
    const ids = m.catcher.mails.map((mail) => mail.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(topUps);
  });
});
