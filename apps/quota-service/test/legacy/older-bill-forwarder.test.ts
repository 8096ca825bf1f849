import { billingV1 } from '@gw/contracts';
import { clientChain, createLogger, Database, openDatabase, RpcClient, rpcClient } from '@gw/service-kit';
import { createTestDatabase, eventually, freePort, TestDatabase } from '@gw/testing';
import { BillingClient } from '../../src/clients/billing-client';
import { OlderBillingCalls } from '../../src/clients/legacy/older-billing-calls';
import { OlderBillDeliveries } from '../../src/domain/legacy/older-bill-deliveries';
import { BillForwarder } from '../../src/domain/bill-forwarder';
import { InMemoryBillOutbox } from '../../src/store/outbox/in-memory-bill-outbox';
import { olderOutboxBill } from '../store-contracts/bill-outbox.contract';
import { BillingProcess, startBillingProcess } from '../billing-process';

const DEADLINE_MS = 5000;
const OPTIONS = { pollMs: 10, maxBackoffMs: 50, batchSize: 50 };

describe("BillForwarder delivering the older release's bills to a real billing-service (its own process, Postgres)", () => {
  let testDb: TestDatabase;
  let db: Database;
  let billingService: BillingProcess;
  let billing: RpcClient<billingV1.BillingClient, billingV1.BillingService>;
  let sink: BillingClient;
  let outbox: InMemoryBillOutbox;
  let logs: string[];
  let forwarder: BillForwarder;
  let seq = 0;

  const logger = () => createLogger('quota-service-test', 'warn', (line) => logs.push(line));
  const balance = async (accountId: string) => (await billing.getBalance({ accountId })).balanceMicroLyd;
  const ledger = async (requestId: string) =>
    (await db.query('SELECT amount_micro::int AS amount, paid, usage_estimated FROM billing.ledger WHERE request_id = $1', [requestId]))
      .rows;
  /** A funded account with a paid request authorized for 1,000 prompt + 1,000 reply tokens of vendor-v4-flash (5,000 micro-LYD). */
  const authorized = async () => {
    const accountId = `acct_fwd_${++seq}`;
    const requestId = `req_fwd_${seq}`;
    await billing.addBalance({ accountId, amountMicroLyd: 100_000 });
    const request = { requestId, accountId, model: 'vendor-v4-flash', promptTokens: 1000, maxTokens: 1000 };
    expect(await billing.authorize(request)).toMatchObject({ approved: true });
    return { accountId, requestId };
  };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    billingService = await startBillingProcess(testDb.url);
    const settings = { timeoutMs: DEADLINE_MS, chain: clientChain() };
    billing = rpcClient(billingV1.BillingClient, billingService.address, { kind: 'insecure' }, 'billing-service', settings);
    sink = new BillingClient(billingService.address, { kind: 'insecure' }, DEADLINE_MS);
    db = await openDatabase(testDb.url, '');
  });
  beforeEach(() => {
    logs = [];
    outbox = new InMemoryBillOutbox();
    forwarder = new BillForwarder(outbox, sink, OPTIONS, logger(), new OlderBillDeliveries(new OlderBillingCalls(sink.rpc)));
  });
  afterAll(async () => {
    sink?.close();
    billing?.close();
    await db?.close();
    await billingService?.stop();
    await testDb?.drop();
  });

  it('settles a paid request once, however often its bill is queued', async () => {
    const { accountId, requestId } = await authorized();
    const bill = olderOutboxBill({ accountId, requestId, promptTokens: 1000, completionTokens: 500 });
    await outbox.append(bill);
    await outbox.append(bill);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 2, failed: 0 });
    await outbox.append(bill);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 1, failed: 0 });
    expect(await balance(accountId)).toBe(100_000 - 3000);
    expect(await ledger(requestId)).toEqual([{ amount: 3000, paid: true, usage_estimated: false }]);
    expect(await outbox.claim(10)).toEqual([]);
  });

  it('records a free request in the ledger once, with its estimated flag', async () => {
    const bill = olderOutboxBill({ accountId: 'acct_free', requestId: `req_free_${++seq}`, payment: 'free', usageEstimated: true });
    await outbox.append(bill);
    await outbox.append(bill);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 2, failed: 0 });
    expect(await ledger(bill.requestId)).toEqual([{ amount: 0, paid: false, usage_estimated: true }]);
  });

  it('releases the hold of a paid request that used no tokens, without a ledger row', async () => {
    const { accountId, requestId } = await authorized();
    await outbox.append(olderOutboxBill({ accountId, requestId, promptTokens: 0, completionTokens: 0 }));
    await forwarder.forwardOnce();
    expect(await ledger(requestId)).toEqual([]);
    const whole = { requestId: `${requestId}-all`, accountId, model: 'vendor-v4-flash', promptTokens: 100_000, maxTokens: 0 };
    expect(await billing.authorize(whole)).toMatchObject({
      approved: true,
      requiredMicroLyd: 100_000,
    });
  });

  it('keeps the bill while billing-service cannot be reached, and delivers it once it can', async () => {
    const { accountId, requestId } = await authorized();
    const unreachable = new BillingClient(`127.0.0.1:${await freePort()}`, { kind: 'insecure' }, 300);
    const blocked = new BillForwarder(
      outbox,
      unreachable,
      OPTIONS,
      logger(),
      new OlderBillDeliveries(new OlderBillingCalls(unreachable.rpc)),
    );
    await outbox.append(olderOutboxBill({ accountId, requestId, promptTokens: 1000, completionTokens: 0 }));
    expect(await blocked.forwardOnce()).toEqual({ delivered: 0, failed: 1 });
    expect(await blocked.forwardOnce()).toEqual({ delivered: 0, failed: 1 });
    unreachable.close();
    expect(logs.some((line) => line.includes('will retry'))).toBe(true);
    expect(await outbox.claim(10)).toHaveLength(1);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 1, failed: 0 });
    expect(await balance(accountId)).toBe(100_000 - 1000);
  });

  it('drops a bill billing-service refuses for good, logging all of it', async () => {
    const bill = olderOutboxBill({ requestId: 'req_never_authorized' });
    await outbox.append(bill);
    expect(await forwarder.forwardOnce()).toEqual({ delivered: 1, failed: 0 });
    const dropped = logs.map((line) => JSON.parse(line)).find((event) => event.msg === 'bill refused by billing-service, dropped');
    expect(dropped).toMatchObject({ level: 'error', billingId: bill.requestId, record: bill });
  });

  it('runs on its own once started, and delivers what is left when stopped', async () => {
    const { accountId, requestId } = await authorized();
    forwarder.start();
    await outbox.append(olderOutboxBill({ accountId, requestId, promptTokens: 1000, completionTokens: 0 }));
    expect(
      await eventually(
        () => balance(accountId),
        (micro) => micro !== 100_000,
        { timeoutMs: 5000, intervalMs: 10 },
      ),
    ).toBe(99_000);

    const second = await authorized();
    await forwarder.stop();
    await outbox.append(olderOutboxBill({ ...second, promptTokens: 2000, completionTokens: 0 }));
    await forwarder.stop(5000);
    expect(await balance(second.accountId)).toBe(98_000);
  });
});
