import { status } from '@grpc/grpc-js';
import { consoleV1, eventsV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, GrpcSecurity, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, eventually, TestDatabase, testTlsDir } from '@gw/testing';
import { ConsoleApp, startConsoleApp } from '../src/console-app';
import { loadConfig } from '../src/config';
import { ThresholdHandover } from '../src/domain/threshold-handover';
import { PgKeptThresholdStore } from '../src/store/pg-kept-threshold-store';
import { PgMailSwitchStore } from '../src/store/pg-mail-switch-store';

const mtls = (identity: string): GrpcSecurity => ({ kind: 'mtls', dir: testTlsDir(identity), refreshMs: 60_000 });
const logger = createLogger('console', 'error', () => undefined);
const { HolderEventKind } = eventsV1;

/**
 * The console's side of holders' mail on Postgres: whom an account's mail goes to (console.v1
 * ListMailRecipients, for the notifier only), each holder's switches with security mail always on,
 * and the one-time handover of the low-balance thresholds the console kept to billing-service.
 */
describe("the console's mail recipients and thresholds handover", () => {
  let testDb: TestDatabase;
  let db: Database;
  let app: ConsoleApp;
  let notifier: RpcClient<consoleV1.ConsoleClient, consoleV1.ConsoleService>;
  let ctl: RpcClient<consoleV1.ConsoleClient, consoleV1.ConsoleService>;
  const switches = () => new PgMailSwitchStore(db);

  beforeAll(async () => {
    testDb = await createTestDatabase();
    app = await startConsoleApp(
      loadConfig({
        CONSOLE_PORT: '0',
        CONSOLE_GRPC_PORT: '0',
        CONSOLE_METRICS_PORT: '0',
        BIND_HOST: '127.0.0.1',
        TLS_DIR: testTlsDir('console'),
        DATABASE_URL: testDb.url,
        // Nothing answers there: the app's own handover retries and leaves the test's rows alone.
        BILLING_ADDR: '127.0.0.1:9',
        SHUTDOWN_GRACE_MS: '500',
      }),
      logger,
    );
    db = await openDatabase(testDb.url, '');
    const client = (identity: string) =>
      rpcClient(consoleV1.ConsoleClient, `127.0.0.1:${app.port}`, mtls(identity), 'console', { timeoutMs: 5000, chain: clientChain() });
    [notifier, ctl] = [client('notifier'), client('ctl')];
    await db.query(`INSERT INTO console.holders (id, email, account_id, password_hash) VALUES
      ('h1', 'ann@example.com', 'acct_mail', 'x'), ('h2', 'bob@example.com', 'acct_mail', 'x'), ('h3', 'cy@example.com', 'acct_other', 'x')`);
  }, 60_000);

  afterAll(async () => {
    notifier?.close();
    ctl?.close();
    await app?.stop();
    await db?.close();
    await testDb?.drop();
  });

  it('names every holder of the account with the kinds each switched off, never a security kind', async () => {
    await switches().setSwitchedOff('h1', ['top-up-credited', 'low-balance']);
    // Kept by some other way than the page: still never off.
    await switches().setSwitchedOff('h2', ['key-revoked']);
    expect(await notifier.listMailRecipients({ accountId: 'acct_mail' })).toEqual({
      recipients: [
        {
          email: 'ann@example.com',
          switchedOff: [HolderEventKind.HOLDER_EVENT_KIND_LOW_BALANCE, HolderEventKind.HOLDER_EVENT_KIND_TOP_UP_CREDITED],
        },
        { email: 'bob@example.com', switchedOff: [] },
      ],
    });
    expect(await notifier.listMailRecipients({ accountId: 'acct_nobody' })).toEqual({ recipients: [] });
    await switches().setSwitchedOff('h1', []);
    expect((await notifier.listMailRecipients({ accountId: 'acct_mail' })).recipients[0].switchedOff).toEqual([]);
  });

  it('answers the notifier only', async () => {
    await expect(ctl.listMailRecipients({ accountId: 'acct_mail' })).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
    await expect(notifier.listMailRecipients({ accountId: '' })).rejects.toMatchObject({ code: status.INVALID_ARGUMENT });
  });

  it('hands each kept threshold over once, keeping one billing-service already has, and retries while it does not answer', async () => {
    await db.query(`INSERT INTO console.low_balance_thresholds (account_id, threshold_micro, set_by) VALUES
      ('acct_t1', 5000000, 'h1'), ('acct_t2', 1, 'h2')`);
    const set: unknown[][] = [];
    let answering = false;
    const billing = {
      setThreshold: async (...args: unknown[]) => {
        if (!answering) throw Object.assign(new Error('billing-service unavailable'), { code: status.UNAVAILABLE });
        set.push(args);
      },
    };
    const kept = new PgKeptThresholdStore(db);
    const handover = new ThresholdHandover(kept, billing, logger);
    handover.start();
    await eventually(
      () => kept.kept(10),
      (rows) => rows.length === 2,
      { what: 'the thresholds still kept while billing-service is away' },
    );
    answering = true;
    await eventually(
      () => kept.kept(10),
      (rows) => rows.length === 0,
      { what: 'every threshold handed over', timeoutMs: 15_000 },
    );
    await handover.stop();
    expect(set).toEqual([
      ['acct_t1', 5_000_000, 'h1', true],
      ['acct_t2', 1, 'h2', true],
    ]);
    // Run again (the next start): nothing to hand over.
    expect(await new ThresholdHandover(kept, billing, logger).pass()).toBeUndefined();
    expect(set).toHaveLength(2);
  });
});
