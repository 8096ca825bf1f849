import { createLogger, Database, openDatabase, runMigrations } from '@gw/service-kit';
import { createTestDatabase, eventually, TestDatabase } from '@gw/testing';
import { HolderNotice, MailDraft } from '../src/domain/holder-notice';
import { MailSender, MailTransport } from '../src/domain/mail-sender';
import { NOTIFIER_MIGRATIONS } from '../src/store/notifier-migrations';
import { PgMailStore } from '../src/store/pg-mail-store';

const logger = createLogger('notifier', 'error', () => undefined);
let seq = 0;
const notice = (accountId = 'acct_store'): HolderNotice => ({
  source: 'billing-service',
  id: ++seq,
  at: new Date(Date.UTC(2026, 0, 1, 0, seq)),
  accountId,
  kind: 'top-up-credited',
  details: { amountMicro: 1, balanceMicro: 1 },
});
const mail = (to: string, n: number): MailDraft => ({
  messageId: `billing-service.${n}.${to}@test`,
  to,
  subject: `mail ${n}`,
  text: 'text',
});

/** A mail server that takes or refuses each send as the test says, counting what it took. */
class TestTransport implements MailTransport {
  taken: MailDraft[] = [];
  refuse = 0;
  async send(m: MailDraft): Promise<void> {
    if (this.refuse > 0) {
      this.refuse--;
      throw Object.assign(new Error('Mailbox busy'), { code: 'EENVELOPE', responseCode: 451, response: '451 4.3.2 try again later' });
    }
    this.taken.push(m);
  }
  closed = false;
  close(): void {
    this.closed = true;
  }
}

/**
 * The notifier's store and sender on Postgres: an event taken once with its mails and cursor in
 * one transaction, mails claimed so that two senders never both send one, retried with backoff,
 * given up after the last try, and kept mails (no mail server) never sent.
 */
describe('the notifier store on Postgres', () => {
  let testDb: TestDatabase;
  let db: Database;
  let store: PgMailStore;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    db = await openDatabase(testDb.url, '');
    await runMigrations(db, 'notifier', NOTIFIER_MIGRATIONS);
    store = new PgMailStore(db);
  });
  afterAll(async () => {
    await db?.close();
    await testDb?.drop();
  });
  beforeEach(() => db.query('TRUNCATE notifier.mails, notifier.taken_events, notifier.cursors'));

  const states = async () =>
    (
      await db.query<{ subject: string; state: string; attempts: number }>(
        'SELECT subject, state, attempts FROM notifier.mails ORDER BY id',
      )
    ).rows;

  it('takes an event once: a repeated delivery writes no mail again, and the cursor moves on', async () => {
    const event = notice();
    expect(await store.take(event, 'c1', [mail('a@example.com', 1), mail('b@example.com', 1)], 'pending')).toBe(true);
    expect(await store.take(event, 'c2', [mail('a@example.com', 1), mail('b@example.com', 1)], 'pending')).toBe(false);
    expect(await states()).toHaveLength(2);
    expect(await store.cursor('billing-service')).toBe('c2');
    expect(await store.cursor('auth-service')).toBe('');
  });

  it('takes the same event once from two takers at once', async () => {
    const event = notice();
    const results = await Promise.all([1, 2].map(() => store.take(event, 'c', [mail('a@example.com', event.id)], 'pending')));
    expect(results.sort()).toEqual([false, true]);
    expect(await states()).toHaveLength(1);
  });

  it('lets one claimer have a mail until its claim lapses', async () => {
    await store.take(notice(), 'c', [mail('a@example.com', 1)], 'pending');
    const [first, second] = await Promise.all([store.claimDue(10, 60_000), store.claimDue(10, 60_000)]);
    expect(first.length + second.length).toBe(1);
    expect(await store.claimDue(10, 60_000)).toEqual([]);
    await db.query("UPDATE notifier.mails SET claimed_until = now() - interval '1 second'");
    expect(await store.claimDue(10, 60_000)).toHaveLength(1);
  });

  it('never claims a mail kept in the outbox, and lists the account mails newest first', async () => {
    await store.take(notice('acct_list'), 'c', [mail('a@example.com', 1)], 'kept');
    await store.take(notice('acct_list'), 'c', [mail('a@example.com', 2)], 'kept');
    expect(await store.claimDue(10, 60_000)).toEqual([]);
    expect((await store.forAccount('acct_list', 10)).map((m) => [m.subject, m.state])).toEqual([
      ['mail 2', 'kept'],
      ['mail 1', 'kept'],
    ]);
    expect(await store.nextDueInMs()).toBeUndefined();
  });

  it('sends each pending mail once, tries again after a refusal, and gives one up after its last try', async () => {
    const transport = new TestTransport();
    const sender = new MailSender(store, transport, { retry: { firstMs: 20, maxMs: 50 }, maxAttempts: 3, claimMs: 60_000 }, logger);
    transport.refuse = 2;
    await store.take(notice(), 'c', [mail('a@example.com', 1)], 'pending');
    sender.wake();
    await eventually(states, (rows) => rows[0]?.state === 'sent', { what: 'the mail sent after two refusals' });
    expect(await states()).toEqual([{ subject: 'mail 1', state: 'sent', attempts: 3 }]);
    expect(transport.taken.map((m) => m.subject)).toEqual(['mail 1']);

    transport.refuse = 3;
    await store.take(notice(), 'c', [mail('a@example.com', 2)], 'pending');
    sender.wake();
    await eventually(states, (rows) => rows[1]?.state === 'failed', { what: 'the mail given up' });
    expect((await states())[1]).toEqual({ subject: 'mail 2', state: 'failed', attempts: 3 });
    const { rows } = await db.query<{ last_error: string }>("SELECT last_error FROM notifier.mails WHERE subject = 'mail 2'");
    expect(rows[0].last_error).toBe('EENVELOPE 451: 451 4.3.2 try again later');
    await sender.stop();
    expect(transport.taken.map((m) => m.subject)).toEqual(['mail 1']);
  });
});
